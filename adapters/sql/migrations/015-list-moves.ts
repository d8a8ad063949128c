import { changeShards } from './006-change-version.js';
import type { Migration } from './migration.js';

/**
 * A change counter per kept total (docs/adapters.md, "Offset anchors"): `moves` of an
 * `asset_counts` row goes up whenever a position in that seller's list (of that status) may have
 * moved, and of a `row_counts` status row whenever a position in that status's queue may have
 * moved (on PostgreSQL in the writer's shard: a sum of counters that only go up moves whenever one
 * does). A total alone cannot say so: a create and a delete leave it equal and shift every
 * position after them. The offset anchors of a list hold only under the counter they were read
 * with. Bumped by the same triggers as the totals (migration 13's, replaced; a bulk insert or
 * delete by its row count), and for the sort keys: a seller's list is in `created_at` order, the
 * queue in `updated_at` order, so an edit of a queued listing moves it to the queue's end.
 */
const countNew = `INSERT INTO asset_counts (owner_id, status, total, moves) VALUES (NEW.owner_id, NEW.status, 1, 1)
        ON CONFLICT (owner_id, status) DO UPDATE SET total = total + 1, moves = moves + 1;
      INSERT INTO row_counts (name, shard, total, moves) VALUES ('assets:' || NEW.status, 0, 1, 1)
        ON CONFLICT (name, shard) DO UPDATE SET total = total + 1, moves = moves + 1;`;
const uncountOld = `UPDATE asset_counts SET total = total - 1, moves = moves + 1 WHERE owner_id = OLD.owner_id AND status = OLD.status;
      UPDATE row_counts SET total = total - 1, moves = moves + 1 WHERE name = 'assets:' || OLD.status AND shard = 0;`;

/** PostgreSQL's part of a bulk insert or delete for the status totals, in this writer's shard. */
const statusTotals = (schema: string, rows: 'added' | 'removed', sign: '' | '-') => `INSERT INTO ${schema}.row_counts AS c (name, shard, total, moves)
        SELECT 'assets:' || status, pg_backend_pid() % ${changeShards}, ${sign}COUNT(*), COUNT(*) FROM ${rows} GROUP BY status ORDER BY status
        ON CONFLICT (name, shard) DO UPDATE SET total = c.total + EXCLUDED.total, moves = c.moves + EXCLUDED.moves;`;

/** The move function's part for the status totals, in this writer's shard `my_shard` (migration 18 keeps it as is). */
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
  version: 15,
  name: 'list-moves',
  sqlite: [
    `ALTER TABLE asset_counts ADD COLUMN moves INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE row_counts ADD COLUMN moves INTEGER NOT NULL DEFAULT 0`,
    `DROP TRIGGER assets_counted_insert`,
    `DROP TRIGGER assets_counted_delete`,
    `DROP TRIGGER assets_counted_update`,
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
    // Same owner and status, a sort key changed: the row moved within its lists.
    `CREATE TRIGGER assets_moved AFTER UPDATE OF created_at, updated_at ON assets
      WHEN OLD.owner_id IS NEW.owner_id AND OLD.status IS NEW.status BEGIN
      UPDATE asset_counts SET moves = moves + 1 WHERE owner_id = NEW.owner_id AND status = NEW.status AND OLD.created_at IS NOT NEW.created_at;
      UPDATE row_counts SET moves = moves + 1 WHERE name = 'assets:' || NEW.status AND shard = 0 AND OLD.updated_at IS NOT NEW.updated_at;
    END`,
  ],
  postgres: ({ schema }) => [
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
