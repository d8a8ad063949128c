import type { Migration } from './migration.js';

/**
 * The state of uploads in progress (core/ports/upload-state.ts): the durable offset, the saved
 * SHA-256 state, the digest once complete, a multipart upload's id and part list (JSON), and the
 * append lease. Keyed by storage path, apart from the issued uploads' table so that the upload
 * protocol's writes never touch the listings' rows.
 */
export const uploadStates: Migration = {
  version: 9,
  name: 'upload-states',
  statements: [
    `CREATE TABLE upload_states (
      storage_path TEXT PRIMARY KEY,
      length INTEGER,
      offset INTEGER NOT NULL,
      hash_state TEXT,
      sha256 TEXT,
      store_upload_id TEXT,
      parts TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      lease_holder TEXT,
      lease_until_ms INTEGER
    )`,
    'CREATE INDEX upload_states_expiry ON upload_states (expires_at)',
  ],
};
