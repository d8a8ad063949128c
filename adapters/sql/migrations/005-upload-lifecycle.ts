import type { Migration } from './migration.js';

/**
 * Uploads get a life (issued, receiving, uploaded, confirmed) and a size, so that a signed URL is
 * good for one upload and an account's storage use can be summed; blobs that nothing points at any
 * more wait in upload_garbage for the sweep; job_leases lets one instance at a time run a job.
 * Uploads issued before this version whose path a listing points at are confirmed; the others
 * start over as issued (their bytes were written where confirm now moves them, so the sweep
 * removes them once their URL has expired).
 */
export const uploadLifecycle: Migration = {
  version: 5,
  name: 'upload-lifecycle',
  sqlite: [
    `ALTER TABLE uploads ADD COLUMN state TEXT NOT NULL DEFAULT 'issued'`,
    `ALTER TABLE uploads ADD COLUMN size INTEGER`,
    `UPDATE uploads SET state = 'confirmed'
      WHERE EXISTS (SELECT 1 FROM assets a WHERE a.id = uploads.asset_id AND json_extract(a.file, '$.storage_path') = uploads.storage_path)
         OR EXISTS (SELECT 1 FROM images i WHERE i.asset_id = uploads.asset_id AND i.storage_path = uploads.storage_path)`,
    `CREATE INDEX uploads_by_state ON uploads (state, expires_at)`,
    `CREATE TABLE upload_garbage (storage_path TEXT PRIMARY KEY)`,
    `CREATE TABLE job_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, until_ms INTEGER NOT NULL)`,
  ],
  // PostgreSQL's initial schema has them.
  postgres: [],
};
