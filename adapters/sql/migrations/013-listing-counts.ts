import { changeShards } from './006-change-version.js';
import type { Migration } from './migration.js';

/**
 * Kept totals for the lists (docs/adapters.md, "Lists at scale"): a seller's listings per status
 * (`asset_counts`), every listing per status (the moderation queue) and the accounts (`row_counts`).
 * Triggers keep them in the writing transaction, whatever writes (the storage, a bulk seed, an
 * operator's SQL), so that a page's total is a read of a few rows, not a COUNT(*) that grows with
 * the catalogue. Filled from the rows already there.
 *
 * SQLite has one writer at a time: one shard, a trigger per row. On PostgreSQL a status total is
 * spread over sixteen shards (the writer's `pg_backend_pid() % 16`, as marketkit_changes is): one
 * row per status would make every create of every seller wait for the previous one's commit.
 * Inserts and deletes count per statement over its transition table (a bulk seed of 100,000 rows
 * is one aggregate, not 100,000 upserts); a status change counts per row, only when the status or
 * owner changed, both rows of a move in one UPDATE so that two opposite moves lock in one order.
 * Function bodies name the tables with the schema, whoever's session writes (see migration 9).
 */
/** A trigger's statements that count the NEW row in, and the OLD row out. */
const countNew = `INSERT INTO asset_counts (owner_id, status, total) VALUES (NEW.owner_id, NEW.status, 1)
        ON CONFLICT (owner_id, status) DO UPDATE SET total = total + 1;
      INSERT INTO row_counts (name, shard, total) VALUES ('assets:' || NEW.status, 0, 1)
        ON CONFLICT (name, shard) DO UPDATE SET total = total + 1;`;
const uncountOld = `UPDATE asset_counts SET total = total - 1 WHERE owner_id = OLD.owner_id AND status = OLD.status;
      UPDATE row_counts SET total = total - 1 WHERE name = 'assets:' || OLD.status AND shard = 0;`;

/** Adds (or with sign '-' takes away) a transition table's rows to their statuses' totals, in this writer's shard (PostgreSQL). */
const statusTotals = (schema: string, rows: 'added' | 'removed', sign: '' | '-') => `INSERT INTO ${schema}.row_counts AS c (name, shard, total)
        SELECT 'assets:' || status, pg_backend_pid() % ${changeShards}, ${sign}COUNT(*) FROM ${rows} GROUP BY status ORDER BY status
        ON CONFLICT (name, shard) DO UPDATE SET total = c.total + EXCLUDED.total;`;

export const listingCounts: Migration = {
  version: 13,
  name: 'listing-counts',
  sqlite: [
    `CREATE TABLE asset_counts (
      owner_id TEXT NOT NULL,
      status TEXT NOT NULL,
      total INTEGER NOT NULL,
      PRIMARY KEY (owner_id, status)
    ) WITHOUT ROWID`,
    `CREATE TABLE row_counts (
      name TEXT NOT NULL,
      shard INTEGER NOT NULL,
      total INTEGER NOT NULL,
      PRIMARY KEY (name, shard)
    ) WITHOUT ROWID`,
    `INSERT INTO asset_counts (owner_id, status, total) SELECT owner_id, status, COUNT(*) FROM assets GROUP BY owner_id, status`,
    `INSERT INTO row_counts (name, shard, total) SELECT 'assets:' || status, 0, COUNT(*) FROM assets GROUP BY status`,
    `INSERT INTO row_counts (name, shard, total) SELECT 'accounts', 0, COUNT(*) FROM accounts`,
    `CREATE TRIGGER assets_counted_insert AFTER INSERT ON assets BEGIN
      ${countNew}
    END`,
    `CREATE TRIGGER assets_counted_delete AFTER DELETE ON assets BEGIN
      ${uncountOld}
    END`,
    `CREATE TRIGGER assets_counted_update AFTER UPDATE OF owner_id, status ON assets
      WHEN OLD.owner_id IS NOT NEW.owner_id OR OLD.status IS NOT NEW.status BEGIN
      ${uncountOld}
      ${countNew}
    END`,
    `CREATE TRIGGER accounts_counted_insert AFTER INSERT ON accounts BEGIN
      INSERT INTO row_counts (name, shard, total) VALUES ('accounts', 0, 1) ON CONFLICT (name, shard) DO UPDATE SET total = total + 1;
    END`,
    `CREATE TRIGGER accounts_counted_delete AFTER DELETE ON accounts BEGIN
      UPDATE row_counts SET total = total - 1 WHERE name = 'accounts' AND shard = 0;
    END`,
  ],
  postgres: ({ schema }) => [
    `CREATE TABLE asset_counts (
      owner_id TEXT COLLATE "C" NOT NULL,
      status TEXT COLLATE "C" NOT NULL,
      total BIGINT NOT NULL,
      PRIMARY KEY (owner_id, status)
    )`,
    `CREATE TABLE row_counts (
      name TEXT COLLATE "C" NOT NULL,
      shard INTEGER NOT NULL,
      total BIGINT NOT NULL,
      PRIMARY KEY (name, shard)
    )`,
    `INSERT INTO asset_counts (owner_id, status, total) SELECT owner_id, status, COUNT(*) FROM assets GROUP BY owner_id, status`,
    `INSERT INTO row_counts (name, shard, total) SELECT 'assets:' || status, 0, COUNT(*) FROM assets GROUP BY status`,
    `INSERT INTO row_counts (name, shard, total) SELECT 'accounts', 0, COUNT(*) FROM accounts`,
    `CREATE FUNCTION marketkit_count_assets_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO ${schema}.asset_counts AS c (owner_id, status, total)
        SELECT owner_id, status, COUNT(*) FROM added GROUP BY owner_id, status ORDER BY owner_id, status
        ON CONFLICT (owner_id, status) DO UPDATE SET total = c.total + EXCLUDED.total;
      ${statusTotals(schema, 'added', '')}
      RETURN NULL;
    END
    $$`,
    `CREATE FUNCTION marketkit_count_assets_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE ${schema}.asset_counts c SET total = c.total - d.n
        FROM (SELECT owner_id, status, COUNT(*) AS n FROM removed GROUP BY owner_id, status) d
        WHERE c.owner_id = d.owner_id AND c.status = d.status;
      ${statusTotals(schema, 'removed', '-')}
      RETURN NULL;
    END
    $$`,
    `CREATE FUNCTION marketkit_count_assets_moved() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      my_shard INTEGER := pg_backend_pid() % ${changeShards};
    BEGIN
      INSERT INTO ${schema}.asset_counts (owner_id, status, total) VALUES (NEW.owner_id, NEW.status, 0) ON CONFLICT DO NOTHING;
      UPDATE ${schema}.asset_counts SET total = total + CASE WHEN owner_id = NEW.owner_id AND status = NEW.status THEN 1 ELSE -1 END
        WHERE (owner_id = OLD.owner_id AND status = OLD.status) OR (owner_id = NEW.owner_id AND status = NEW.status);
      IF OLD.status IS DISTINCT FROM NEW.status THEN
        -- This writer's shard may hold neither status yet: both rows made first, then one UPDATE moves the count.
        INSERT INTO ${schema}.row_counts (name, shard, total) VALUES ('assets:' || OLD.status, my_shard, 0), ('assets:' || NEW.status, my_shard, 0) ON CONFLICT DO NOTHING;
        UPDATE ${schema}.row_counts c SET total = c.total + CASE WHEN c.name = 'assets:' || NEW.status THEN 1 ELSE -1 END
          WHERE c.shard = my_shard AND c.name IN ('assets:' || OLD.status, 'assets:' || NEW.status);
      END IF;
      RETURN NULL;
    END
    $$`,
    `CREATE FUNCTION marketkit_count_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO ${schema}.row_counts AS c (name, shard, total) VALUES ('accounts', 0, CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END)
        ON CONFLICT (name, shard) DO UPDATE SET total = c.total + EXCLUDED.total;
      RETURN NULL;
    END
    $$`,
    `CREATE TRIGGER assets_counted_insert AFTER INSERT ON assets REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION marketkit_count_assets_added()`,
    `CREATE TRIGGER assets_counted_delete AFTER DELETE ON assets REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION marketkit_count_assets_removed()`,
    `CREATE TRIGGER assets_counted_update AFTER UPDATE OF owner_id, status ON assets FOR EACH ROW
      WHEN (OLD.owner_id IS DISTINCT FROM NEW.owner_id OR OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION marketkit_count_assets_moved()`,
    `CREATE TRIGGER accounts_counted AFTER INSERT OR DELETE ON accounts FOR EACH ROW EXECUTE FUNCTION marketkit_count_accounts()`,
  ],
};
