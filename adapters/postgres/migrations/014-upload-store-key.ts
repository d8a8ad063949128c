import type { Migration } from './migration.js';

/**
 * The key a resumable upload's bytes are kept under and completed at, as SQLite's migration 15 has
 * it (core/ports/upload-state.ts, `store_key`). Null, as every row before it has, is the staging
 * key; a nullable column with no default rewrites no row.
 */
export const uploadStoreKey: Migration = {
  version: 14,
  name: 'upload-store-key',
  statements: [`ALTER TABLE upload_states ADD COLUMN store_key TEXT`],
};
