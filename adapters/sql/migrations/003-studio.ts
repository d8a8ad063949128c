import type { Migration } from './migration.js';

/**
 * Creator Studio (core/ports/studio.ts): every record of every kind in one table, its fields as
 * JSON (text on SQLite). `studio_children` serves the listing of a parent's children in position
 * order and the renumbering of siblings; `studio_by_project` export, removal and reference checks.
 * PostgreSQL's has the keys of migration 4 from the start: `studio_keys` holds one row per unique
 * value held, whose primary key refuses a second holder in the same project and kind.
 */
export const studio: Migration = {
  version: 3,
  name: 'studio',
  sqlite: [
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
  postgres: [
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
