import type { Migration } from './migration.js';

/**
 * The bytes an upload not yet confirmed reserves against its account's quota (core/ports/uploads.ts,
 * reserveUpload): taken with the account's use, so concurrent uploads cannot all pass on the same
 * room (SQLite: in one transaction; PostgreSQL: under an advisory lock on the account, whichever
 * instance reserves). Uploads issued before this version reserve nothing until they take bytes.
 */
export const uploadReservations: Migration = {
  version: 12,
  name: 'upload-reservations',
  sqlite: ['ALTER TABLE uploads ADD COLUMN reserved INTEGER NOT NULL DEFAULT 0'],
  postgres: ['ALTER TABLE uploads ADD COLUMN reserved BIGINT NOT NULL DEFAULT 0'],
};
