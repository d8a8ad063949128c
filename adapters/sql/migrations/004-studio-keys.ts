import type { Migration } from './migration.js';

/**
 * Creator Studio's unique keys (a wiki page's slug, a label's name): one row per key held, so
 * that the primary key refuses a second holder in the same project and kind within the write's
 * transaction; the record keeps its keys too, to show them back.
 */
export const studioKeys: Migration = {
  version: 4,
  name: 'studio-keys',
  sqlite: [
    `ALTER TABLE studio_records ADD COLUMN keys TEXT NOT NULL DEFAULT '[]'`,
    `CREATE TABLE studio_keys (
      project_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      key TEXT NOT NULL,
      record_id TEXT NOT NULL,
      PRIMARY KEY (project_id, kind, key)
    )`,
    `CREATE INDEX studio_keys_by_record ON studio_keys (record_id)`,
  ],
  // PostgreSQL's studio migration made them.
  postgres: [],
};
