import type { Migration } from './migration.js';

/**
 * Each upload names its listing's owner (core/ports/uploads.ts, storageUse), so that an account's
 * storage use is a sum over its own uploads by an index, not a join through every listing it has: the
 * admin API's and the dashboard's accounts (storage_bytes) and every growing upload reservation read
 * it, and for a seller of 100,000 listings the join cost 25 ms on SQLite whether they held a file or
 * not. A listing's owner never changes, so the column is written once, when the upload is recorded.
 */
const backfill = 'UPDATE uploads SET owner_id = (SELECT a.owner_id FROM assets a WHERE a.id = uploads.asset_id)';
const index = 'CREATE INDEX uploads_by_owner ON uploads (owner_id)';

export const uploadOwners: Migration = {
  version: 27,
  name: 'upload-owners',
  sqlite: ['ALTER TABLE uploads ADD COLUMN owner_id TEXT', backfill, index],
  postgres: ['ALTER TABLE uploads ADD COLUMN owner_id TEXT COLLATE "C"', backfill, index],
};
