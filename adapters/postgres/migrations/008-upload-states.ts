import type { Migration } from './migration.js';

/**
 * The state of uploads in progress (core/ports/upload-state.ts), as SQLite's migration 9 has it:
 * durable offset, saved SHA-256 state, digest, a multipart upload's id and part list (jsonb), and
 * the append lease every instance takes before it appends. No trigger bumps `marketkit_changes`:
 * no kept read shows these rows, and every append would otherwise empty every read cache.
 */
export const uploadStates: Migration = {
  version: 8,
  name: 'upload-states',
  statements: [
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
