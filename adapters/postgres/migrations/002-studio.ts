import type { Migration } from './migration.js';

/**
 * Creator Studio (core/ports/studio.ts), as the SQLite adapter's migrations 3 and 4 leave it:
 * every record of every kind in one table, its fields as `json`; `studio_children` serves the
 * listing of a parent's children in position order and the renumbering of siblings,
 * `studio_by_project` export and removal. `studio_keys` holds one row per unique value held, whose
 * primary key refuses a second holder in the same project and kind.
 */
export const studio: Migration = {
  version: 2,
  name: 'studio',
  statements: [
    `CREATE TABLE studio_records (
      id TEXT COLLATE "C" PRIMARY KEY,
      kind TEXT COLLATE "C" NOT NULL,
      owner_id TEXT COLLATE "C" NOT NULL,
      project_id TEXT COLLATE "C" NOT NULL,
      parent_id TEXT COLLATE "C" NOT NULL,
      position INTEGER,
      data JSON NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL,
      revision INTEGER NOT NULL,
      keys JSON NOT NULL
    )`,
    `CREATE INDEX studio_children ON studio_records (parent_id, kind, position, created_at, id)`,
    `CREATE INDEX studio_by_project ON studio_records (project_id)`,
    `CREATE TABLE studio_keys (
      project_id TEXT COLLATE "C" NOT NULL,
      kind TEXT COLLATE "C" NOT NULL,
      key TEXT COLLATE "C" NOT NULL,
      record_id TEXT COLLATE "C" NOT NULL,
      PRIMARY KEY (project_id, kind, key)
    )`,
    `CREATE INDEX studio_keys_by_record ON studio_keys (record_id)`,
  ],
};
