import type { Migration } from './migration.js';

/** How many rows PostgreSQL's version is spread over; a writer bumps the row of its connection (pid % shards). */
export const changeShards = 16;

/** The tables whose every write moves the version (`tokens` apart: see below); the studio's and job_leases are not read by the cache. */
export const versionedTables = ['accounts', 'categories', 'assets', 'images', 'uploads', 'upload_garbage'] as const;

/**
 * Every column of `tokens` but `last_used_at`: an UPDATE that sets only that column (touchToken,
 * at most once a minute per token in use) moves no version, so a token's use does not empty every
 * instance's cache. A column added to `tokens` later belongs in this list, which the triggers of
 * both databases name (migration 14; a test checks it).
 */
export const versionedTokenColumns = ['id', 'account_id', 'name', 'prefix', 'hash', 'scopes', 'created_at', 'expires_at', 'revoked_at'] as const;

/**
 * The version the read cache checks on PostgreSQL (core/ports/storage.ts, changeVersion): the sum
 * of `marketkit_changes`, bumped inside the writing transaction by a statement trigger on every
 * table the listing storage writes. The bump commits with the write and is visible when it is,
 * never before (unlike a WAL position or a commit timestamp), so a version read after a write was
 * acknowledged shows it, and one read before shows none of it. Each connection bumps its own row
 * of sixteen (`pg_backend_pid() % 16`): one row for all would make every writer wait for the
 * previous one's commit (about 400 against 1,800 transactions/s with 16 writers, measured).
 */
export const changeVersion: Migration = {
  version: 6,
  name: 'change-version',
  // SQLite's version is read from the WAL index's header of the file (adapters/sqlite/wal-index.ts): no table.
  sqlite: [],
  postgres: [
    `CREATE TABLE marketkit_changes (shard INTEGER PRIMARY KEY, version BIGINT NOT NULL)`,
    `INSERT INTO marketkit_changes (shard, version) SELECT s, 0 FROM generate_series(0, ${changeShards - 1}) s`,
    `CREATE FUNCTION marketkit_bump_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE marketkit_changes SET version = version + 1 WHERE shard = pg_backend_pid() % ${changeShards};
      RETURN NULL;
    END
    $$`,
    ...versionedTables.map((t) => `CREATE TRIGGER ${t}_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${t} FOR EACH STATEMENT EXECUTE FUNCTION marketkit_bump_changes()`),
    `CREATE TRIGGER tokens_changed AFTER INSERT OR DELETE OR TRUNCATE ON tokens FOR EACH STATEMENT EXECUTE FUNCTION marketkit_bump_changes()`,
    `CREATE TRIGGER tokens_updated AFTER UPDATE OF ${versionedTokenColumns.join(', ')} ON tokens FOR EACH STATEMENT EXECUTE FUNCTION marketkit_bump_changes()`,
  ],
};
