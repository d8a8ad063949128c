import type { Migration } from './migration.js';

/**
 * Creator Studio (core/ports/studio.ts): every record of every kind in one table, its fields as
 * JSON text. `studio_children` serves the listing of a parent's children in position order and
 * the renumbering of siblings; `studio_by_project` serves export and reference checks.
 */
export const studio: Migration = {
  version: 3,
  name: 'studio',
  statements: [
    `CREATE TABLE studio_records (
      id TEXT PRIMARY KEY,
      kind TEXT NOT NULL,
      owner_id TEXT NOT NULL,
      project_id TEXT NOT NULL,
      parent_id TEXT NOT NULL,
      position INTEGER,
      data TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      revision INTEGER NOT NULL
    )`,
    `CREATE INDEX studio_children ON studio_records (parent_id, kind, position, created_at, id)`,
    `CREATE INDEX studio_by_project ON studio_records (project_id)`,
  ],
};
