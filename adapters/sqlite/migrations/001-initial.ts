import type { Migration } from './migration.js';

/**
 * The first schema. Lists, objects and the asset's file are JSON text; booleans are 0 and 1.
 * Every index serves a query the adapter makes (see queries.ts).
 */
export const initial: Migration = {
  version: 1,
  name: 'initial',
  statements: [
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
};
