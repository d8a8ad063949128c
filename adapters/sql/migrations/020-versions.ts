import type { Migration } from './migration.js';

/**
 * Versions of a published listing (docs/moderation.md, "Versions"): their own table beside the
 * listing's, removed with it. At most one open version (draft, pending or changes_requested) per
 * listing is the partial unique index's to hold, so that two concurrent creations cannot both
 * succeed; a version string is unique per listing. A listing's versions are read newest first, and
 * the review queue reads pending versions in submission order, each from an index. On PostgreSQL a write moves the read cache's version as every table's does
 * (migration 6's statement trigger). PostgreSQL's text columns that are ordered or compared are
 * `COLLATE "C"`, as every such column of migration 1's: a listing's versions and the queue tie on
 * their time by id, in byte order as on SQLite and in memory, whatever the database's locale.
 */
const open = `status IN ('draft', 'pending', 'changes_requested')`;

/** The same indexes on both databases. */
const indexes = [
  `CREATE UNIQUE INDEX asset_versions_by_string ON asset_versions (asset_id, version)`,
  `CREATE UNIQUE INDEX asset_versions_open ON asset_versions (asset_id) WHERE ${open}`,
  `CREATE INDEX asset_versions_queue ON asset_versions (status, submitted_at, id)`,
  `CREATE INDEX asset_versions_by_asset ON asset_versions (asset_id, created_at, id)`,
];

export const versions: Migration = {
  version: 20,
  name: 'versions',
  sqlite: [
    `CREATE TABLE asset_versions (
      id TEXT PRIMARY KEY,
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      owner_id TEXT NOT NULL,
      version TEXT NOT NULL,
      release_notes TEXT NOT NULL,
      status TEXT NOT NULL,
      file TEXT,
      changes TEXT NOT NULL,
      review TEXT,
      release_at TEXT,
      previous_id TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      submitted_at TEXT,
      decided_at TEXT,
      revision INTEGER NOT NULL
    )`,
    ...indexes,
  ],
  postgres: [
    `CREATE TABLE asset_versions (
      id TEXT COLLATE "C" PRIMARY KEY,
      asset_id TEXT COLLATE "C" NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      owner_id TEXT COLLATE "C" NOT NULL,
      version TEXT COLLATE "C" NOT NULL,
      release_notes TEXT NOT NULL,
      status TEXT COLLATE "C" NOT NULL,
      file JSON,
      changes JSON NOT NULL,
      review JSON,
      release_at TEXT COLLATE "C",
      previous_id TEXT COLLATE "C",
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL,
      submitted_at TEXT COLLATE "C",
      decided_at TEXT COLLATE "C",
      revision INTEGER NOT NULL
    )`,
    ...indexes,
    `CREATE TRIGGER asset_versions_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON asset_versions FOR EACH STATEMENT EXECUTE FUNCTION marketkit_bump_changes()`,
  ],
};
