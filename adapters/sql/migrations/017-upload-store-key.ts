import type { Migration } from './migration.js';

/**
 * The key a resumable upload's bytes are kept under and completed at (core/ports/upload-state.ts,
 * `store_key`): a listing file's storage path, so that confirm-file moves nothing. Null, as every
 * row before it has, is the staging key: an upload begun before this migration completes where it
 * began. On PostgreSQL a nullable column with no default rewrites no row.
 */
export const uploadStoreKey: Migration = {
  version: 17,
  name: 'upload-store-key',
  statements: [`ALTER TABLE upload_states ADD COLUMN store_key TEXT`],
};
