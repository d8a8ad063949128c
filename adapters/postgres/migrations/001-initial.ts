import type { Migration } from './migration.js';

/**
 * The listing storage's schema, as the SQLite adapter's five migrations leave it. Timestamps are
 * ISO 8601 text exactly as the core wrote them (`toISOString()`), so text order is time order;
 * every column that is ordered or compared as text is `COLLATE "C"` (byte order), so that order
 * does not depend on the database's locale. Lists and objects are `json`, which keeps the text as
 * written (key order included). Every index serves a query the adapter makes (see queries.ts).
 */
export const initial: Migration = {
  version: 1,
  name: 'initial',
  statements: [
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
