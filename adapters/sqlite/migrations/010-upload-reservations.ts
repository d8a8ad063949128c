import type { Migration } from './migration.js';

/**
 * The bytes an upload not yet confirmed reserves against its account's quota (core/ports/uploads.ts,
 * reserveUpload): taken in one transaction with the account's use, so concurrent uploads cannot
 * all pass on the same room. Uploads issued before this version reserve nothing until they take bytes.
 */
export const uploadReservations: Migration = {
  version: 10,
  name: 'upload-reservations',
  statements: ['ALTER TABLE uploads ADD COLUMN reserved INTEGER NOT NULL DEFAULT 0'],
};
