import type { Migration } from './migration.js';

/**
 * The bytes an upload not yet confirmed reserves against its account's quota, as SQLite's
 * migration 10 has it (core/ports/uploads.ts, reserveUpload: taken under an advisory lock on the
 * account, so concurrent reservations on any instance never share the same room).
 */
export const uploadReservations: Migration = {
  version: 9,
  name: 'upload-reservations',
  statements: ['ALTER TABLE uploads ADD COLUMN reserved BIGINT NOT NULL DEFAULT 0'],
};
