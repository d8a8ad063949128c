import type { Migration } from './migration.js';

/**
 * The listing storage's first schema. Every index serves a query the SQL core makes. SQLite keeps
 * lists, objects and the asset's file as JSON text, booleans as 0 and 1. PostgreSQL, added later,
 * starts where SQLite's migrations 1, 2 and 5 had got to (the review, the scheduler's and the
 * queue's indexes, the uploads' life, upload_garbage and job_leases: those two are empty there).
 * Its timestamps are ISO 8601 text exactly as the core wrote them (`toISOString()`), so text order
 * is time order; every column ordered or compared as text is `COLLATE "C"` (byte order), so that
 * order does not depend on the database's locale; lists and objects are `json`, which keeps the
 * text as written (key order included).
 */
export const initial: Migration = {
  version: 1,
  name: 'initial',
  sqlite: [
    `CREATE TABLE accounts (
      id TEXT PRIMARY KEY,
      username TEXT NOT NULL UNIQUE,
      display_name TEXT,
      bio TEXT,
      website TEXT,
      avatar_url TEXT,
      country TEXT,
      seller_status TEXT NOT NULL,
      is_restricted INTEGER NOT NULL,
      is_suspended INTEGER NOT NULL,
      payouts_connected INTEGER NOT NULL,
      subscription_tier TEXT NOT NULL,
      plan_features TEXT NOT NULL,
      socials TEXT NOT NULL,
      hire TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
    `CREATE TABLE tokens (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      prefix TEXT NOT NULL,
      hash TEXT NOT NULL UNIQUE,
      scopes TEXT NOT NULL,
      created_at TEXT NOT NULL,
      last_used_at TEXT,
      expires_at TEXT,
      revoked_at TEXT
    )`,
    `CREATE INDEX tokens_by_account ON tokens (account_id, created_at DESC, id DESC)`,
    `CREATE TABLE categories (
      id TEXT PRIMARY KEY,
      slug TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL
    )`,
    `CREATE TABLE assets (
      id TEXT PRIMARY KEY,
      owner_id TEXT NOT NULL REFERENCES accounts (id),
      title TEXT NOT NULL,
      slug TEXT NOT NULL,
      description TEXT,
      status TEXT NOT NULL,
      visibility TEXT NOT NULL,
      pricing_type TEXT NOT NULL,
      price REAL,
      is_free INTEGER NOT NULL,
      version TEXT NOT NULL,
      category_id TEXT REFERENCES categories (id),
      tags TEXT NOT NULL,
      scheduled_publish_at TEXT,
      download_count INTEGER NOT NULL,
      view_count INTEGER NOT NULL,
      file TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      revision INTEGER NOT NULL
    )`,
    // The slug's uniqueness is the constraint that makes createAsset atomic.
    `CREATE UNIQUE INDEX assets_by_slug ON assets (slug)`,
    `CREATE INDEX assets_by_owner ON assets (owner_id, created_at DESC, id DESC)`,
    `CREATE INDEX assets_by_owner_status ON assets (owner_id, status, created_at DESC, id DESC)`,
    `CREATE TABLE images (
      id TEXT PRIMARY KEY,
      asset_id TEXT NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
      storage_path TEXT NOT NULL,
      public_url TEXT NOT NULL,
      content_type TEXT NOT NULL,
      file_size INTEGER NOT NULL,
      is_primary INTEGER NOT NULL,
      position INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      UNIQUE (asset_id, storage_path),
      UNIQUE (asset_id, position)
    )`,
    // Two primaries for one asset cannot be stored, whatever the code does.
    `CREATE UNIQUE INDEX images_one_primary ON images (asset_id) WHERE is_primary = 1`,
    `CREATE TABLE uploads (
      storage_path TEXT PRIMARY KEY,
      asset_id TEXT NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      public_url TEXT,
      expires_at TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`,
    `CREATE INDEX uploads_by_asset ON uploads (asset_id)`,
    `CREATE INDEX uploads_by_public_url ON uploads (public_url)`,
  ],
  postgres: [
    `CREATE TABLE accounts (
      id TEXT COLLATE "C" PRIMARY KEY,
      username TEXT COLLATE "C" NOT NULL UNIQUE,
      display_name TEXT,
      bio TEXT,
      website TEXT,
      avatar_url TEXT,
      country TEXT,
      seller_status TEXT NOT NULL,
      is_restricted BOOLEAN NOT NULL,
      is_suspended BOOLEAN NOT NULL,
      payouts_connected BOOLEAN NOT NULL,
      subscription_tier TEXT NOT NULL,
      plan_features JSON NOT NULL,
      socials JSON NOT NULL,
      hire JSON NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    )`,
    `CREATE TABLE tokens (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      prefix TEXT NOT NULL,
      hash TEXT COLLATE "C" NOT NULL UNIQUE,
      scopes JSON NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      last_used_at TEXT,
      expires_at TEXT,
      revoked_at TEXT
    )`,
    `CREATE INDEX tokens_by_account ON tokens (account_id, created_at DESC, id DESC)`,
    `CREATE TABLE categories (
      id TEXT COLLATE "C" PRIMARY KEY,
      slug TEXT COLLATE "C" NOT NULL UNIQUE,
      name TEXT NOT NULL
    )`,
    `CREATE TABLE assets (
      id TEXT COLLATE "C" PRIMARY KEY,
      owner_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id),
      title TEXT NOT NULL,
      slug TEXT COLLATE "C" NOT NULL,
      description TEXT,
      status TEXT COLLATE "C" NOT NULL,
      visibility TEXT NOT NULL,
      pricing_type TEXT NOT NULL,
      price DOUBLE PRECISION,
      is_free BOOLEAN NOT NULL,
      version TEXT NOT NULL,
      category_id TEXT COLLATE "C" REFERENCES categories (id),
      tags JSON NOT NULL,
      scheduled_publish_at TEXT COLLATE "C",
      download_count BIGINT NOT NULL,
      view_count BIGINT NOT NULL,
      file JSON,
      review JSON,
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL,
      revision INTEGER NOT NULL
    )`,
    // The slug's uniqueness is the constraint that makes createAsset atomic (ON CONFLICT (slug)).
    `CREATE UNIQUE INDEX assets_by_slug ON assets (slug)`,
    `CREATE INDEX assets_by_owner ON assets (owner_id, created_at DESC, id DESC)`,
    `CREATE INDEX assets_by_owner_status ON assets (owner_id, status, created_at DESC, id DESC)`,
    `CREATE INDEX assets_due_scheduled ON assets (status, scheduled_publish_at, id)`,
    `CREATE INDEX assets_by_status ON assets (status, updated_at, id)`,
    `CREATE TABLE images (
      id TEXT COLLATE "C" PRIMARY KEY,
      asset_id TEXT COLLATE "C" NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
      storage_path TEXT COLLATE "C" NOT NULL,
      public_url TEXT NOT NULL,
      content_type TEXT NOT NULL,
      file_size BIGINT NOT NULL,
      is_primary BOOLEAN NOT NULL,
      position INTEGER NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      UNIQUE (asset_id, storage_path),
      UNIQUE (asset_id, position)
    )`,
    // Two primaries for one asset cannot be stored, whatever the code does.
    `CREATE UNIQUE INDEX images_one_primary ON images (asset_id) WHERE is_primary`,
    `CREATE TABLE uploads (
      storage_path TEXT COLLATE "C" PRIMARY KEY,
      asset_id TEXT COLLATE "C" NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      public_url TEXT COLLATE "C",
      expires_at TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      state TEXT COLLATE "C" NOT NULL,
      size BIGINT
    )`,
    `CREATE INDEX uploads_by_asset ON uploads (asset_id)`,
    `CREATE INDEX uploads_by_public_url ON uploads (public_url)`,
    `CREATE INDEX uploads_by_state ON uploads (state, expires_at)`,
    `CREATE TABLE upload_garbage (storage_path TEXT COLLATE "C" PRIMARY KEY)`,
    `CREATE TABLE job_leases (name TEXT COLLATE "C" PRIMARY KEY, holder TEXT NOT NULL, until_ms BIGINT NOT NULL)`,
  ],
};
