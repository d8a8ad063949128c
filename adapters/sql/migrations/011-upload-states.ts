import type { Migration } from './migration.js';

/**
 * The state of uploads in progress (core/ports/upload-state.ts): the durable offset, the saved
 * SHA-256 state, the digest once complete, a multipart upload's id and part list (JSON), and the
 * append lease every instance takes before it appends. Keyed by storage path, apart from the
 * issued uploads' table so that the upload protocol's writes never touch the listings' rows. No
 * trigger bumps PostgreSQL's `marketkit_changes`: no kept read shows these rows, and every append
 * would otherwise empty every read cache.
 */
export const uploadStates: Migration = {
  version: 11,
  name: 'upload-states',
  sqlite: [
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
  postgres: [
    `CREATE TABLE upload_states (
      storage_path TEXT COLLATE "C" PRIMARY KEY,
      length BIGINT,
      "offset" BIGINT NOT NULL,
      hash_state TEXT,
      sha256 TEXT,
      store_upload_id TEXT,
      parts JSONB NOT NULL,
      expires_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      lease_holder TEXT,
      lease_until_ms BIGINT
    )`,
    'CREATE INDEX upload_states_expiry ON upload_states (expires_at)',
  ],
};
