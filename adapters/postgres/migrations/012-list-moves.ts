import { changeShards } from './003-change-version.js';
import type { Migration } from './migration.js';

/**
 * A change counter per kept total, as SQLite's migration 13 has it (docs/adapters.md, "Offset
 * anchors"): `moves` goes up whenever a position in the seller's list (`asset_counts`) or in the
 * status's queue (`row_counts`, in the writer's shard: a sum of counters that only go up moves
 * whenever one does) may have moved. The functions of migration 10 are replaced to bump it beside
 * the total (a bulk insert or delete by its row count), and the update trigger now also fires on
 * the sort keys: `created_at` for a seller's list, `updated_at` for the queue (an edit of a queued
 * listing moves it to the queue's end).
 */
const statusTotals = (schema: string, rows: 'added' | 'removed', sign: '' | '-') => `INSERT INTO ${schema}.row_counts AS c (name, shard, total, moves)
        SELECT 'assets:' || status, pg_backend_pid() % ${changeShards}, ${sign}COUNT(*), COUNT(*) FROM ${rows} GROUP BY status ORDER BY status
        ON CONFLICT (name, shard) DO UPDATE SET total = c.total + EXCLUDED.total, moves = c.moves + EXCLUDED.moves;`;

/** The move function's part for the status totals, in this writer's shard `my_shard` (migration 15 keeps it as is). */
export const statusMoved = (schema: string) => `IF OLD.status IS DISTINCT FROM NEW.status THEN
        -- This writer's shard may hold neither status yet: both rows made first, then one UPDATE moves the count.
        INSERT INTO ${schema}.row_counts (name, shard, total) VALUES ('assets:' || OLD.status, my_shard, 0), ('assets:' || NEW.status, my_shard, 0) ON CONFLICT DO NOTHING;
        UPDATE ${schema}.row_counts c SET total = c.total + CASE WHEN c.name = 'assets:' || NEW.status THEN 1 ELSE -1 END, moves = c.moves + 1
          WHERE c.shard = my_shard AND c.name IN ('assets:' || OLD.status, 'assets:' || NEW.status);
      ELSIF OLD.updated_at IS DISTINCT FROM NEW.updated_at THEN
        INSERT INTO ${schema}.row_counts AS c (name, shard, total, moves) VALUES ('assets:' || NEW.status, my_shard, 0, 1)
          ON CONFLICT (name, shard) DO UPDATE SET moves = c.moves + 1;
      END IF;`;

export const listMoves: Migration = {
  version: 12,
  name: 'list-moves',
  statements: ({ schema }) => [
    `ALTER TABLE asset_counts ADD COLUMN moves BIGINT NOT NULL DEFAULT 0`,
    `ALTER TABLE row_counts ADD COLUMN moves BIGINT NOT NULL DEFAULT 0`,
    `CREATE OR REPLACE FUNCTION ${schema}.marketkit_count_assets_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO ${schema}.asset_counts AS c (owner_id, status, total, moves)
        SELECT owner_id, status, COUNT(*), COUNT(*) FROM added GROUP BY owner_id, status ORDER BY owner_id, status
        ON CONFLICT (owner_id, status) DO UPDATE SET total = c.total + EXCLUDED.total, moves = c.moves + EXCLUDED.moves;
      ${statusTotals(schema, 'added', '')}
      RETURN NULL;
    END
    $$`,
    `CREATE OR REPLACE FUNCTION ${schema}.marketkit_count_assets_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE ${schema}.asset_counts c SET total = c.total - d.n, moves = c.moves + d.n
        FROM (SELECT owner_id, status, COUNT(*) AS n FROM removed GROUP BY owner_id, status) d
        WHERE c.owner_id = d.owner_id AND c.status = d.status;
      ${statusTotals(schema, 'removed', '-')}
      RETURN NULL;
    END
    $$`,
    `CREATE OR REPLACE FUNCTION ${schema}.marketkit_count_assets_moved() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      my_shard INTEGER := pg_backend_pid() % ${changeShards};
    BEGIN
      IF OLD.owner_id IS DISTINCT FROM NEW.owner_id OR OLD.status IS DISTINCT FROM NEW.status THEN
        INSERT INTO ${schema}.asset_counts (owner_id, status, total) VALUES (NEW.owner_id, NEW.status, 0) ON CONFLICT DO NOTHING;
        UPDATE ${schema}.asset_counts SET total = total + CASE WHEN owner_id = NEW.owner_id AND status = NEW.status THEN 1 ELSE -1 END, moves = moves + 1
          WHERE (owner_id = OLD.owner_id AND status = OLD.status) OR (owner_id = NEW.owner_id AND status = NEW.status);
      ELSIF OLD.created_at IS DISTINCT FROM NEW.created_at THEN
        UPDATE ${schema}.asset_counts SET moves = moves + 1 WHERE owner_id = NEW.owner_id AND status = NEW.status;
      END IF;
      ${statusMoved(schema)}
      RETURN NULL;
    END
    $$`,
    `DROP TRIGGER assets_counted_update ON assets`,
    `CREATE TRIGGER assets_counted_update AFTER UPDATE OF owner_id, status, created_at, updated_at ON assets FOR EACH ROW
      WHEN (OLD.owner_id IS DISTINCT FROM NEW.owner_id OR OLD.status IS DISTINCT FROM NEW.status
        OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.updated_at IS DISTINCT FROM NEW.updated_at)
      EXECUTE FUNCTION marketkit_count_assets_moved()`,
  ],
};
