import { changeShards } from './006-change-version.js';
import { statusMoved } from './015-list-moves.js';
import type { Migration } from './migration.js';

/**
 * A seller's totals and change counters on PostgreSQL spread over the sixteen shards of the writer
 * (`pg_backend_pid() % 16`), as the status totals of migration 13 and the change rows of
 * migration 6 are. With one row per seller and status, every create of one seller waited on that
 * row's lock for the previous create's commit, its WAL flush included: a busy seller's creates ran
 * one at a time (the POST of docs/performance.md, issue #31). A total is the sum of its shards,
 * which may go below zero one by one (a listing counted in one shard, removed in another). The
 * offset anchors' `moves` (migration 15) is a sum too: every shard's counter only goes up, so
 * the sum moves whenever any one does, and the anchored page statement already sums the rows it
 * finds (adapters/sql/offset-anchors.ts). At most 7 x 16 rows per seller: the count stays flat.
 */
const shard = `pg_backend_pid() % ${changeShards}`;

/** Adds (or with sign '-' takes away) a transition table's rows to their seller's and status's totals, in this writer's shard; moves counts up either way. */
const totals = (schema: string, rows: 'added' | 'removed', sign: '' | '-') => `INSERT INTO ${schema}.asset_counts AS c (owner_id, status, shard, total, moves)
        SELECT owner_id, status, ${shard}, ${sign}COUNT(*), COUNT(*) FROM ${rows} GROUP BY owner_id, status ORDER BY owner_id, status
        ON CONFLICT (owner_id, status, shard) DO UPDATE SET total = c.total + EXCLUDED.total, moves = c.moves + EXCLUDED.moves;
      INSERT INTO ${schema}.row_counts AS c (name, shard, total, moves)
        SELECT 'assets:' || status, ${shard}, ${sign}COUNT(*), COUNT(*) FROM ${rows} GROUP BY status ORDER BY status
        ON CONFLICT (name, shard) DO UPDATE SET total = c.total + EXCLUDED.total, moves = c.moves + EXCLUDED.moves;`;

export const sellerCountShards: Migration = {
  version: 18,
  name: 'seller-count-shards',
  // SQLite has one writer at a time: a seller's creates wait for that, not for a row.
  sqlite: [],
  postgres: ({ schema }) => [
    `ALTER TABLE asset_counts ADD COLUMN shard INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE asset_counts ALTER COLUMN shard DROP DEFAULT`,
    `ALTER TABLE asset_counts DROP CONSTRAINT asset_counts_pkey`,
    `ALTER TABLE asset_counts ADD PRIMARY KEY (owner_id, status, shard)`,
    ...(['added', 'removed'] as const).map(
      (rows) => `CREATE OR REPLACE FUNCTION ${schema}.marketkit_count_assets_${rows}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${totals(schema, rows, rows === 'added' ? '' : '-')}
      RETURN NULL;
    END
    $$`,
    ),
    // A move's two rows made first in this writer's shard, then one UPDATE moves the count, so two
    // opposite moves lock in one order (as migration 13's did).
    `CREATE OR REPLACE FUNCTION ${schema}.marketkit_count_assets_moved() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      my_shard INTEGER := ${shard};
    BEGIN
      IF OLD.owner_id IS DISTINCT FROM NEW.owner_id OR OLD.status IS DISTINCT FROM NEW.status THEN
        INSERT INTO ${schema}.asset_counts (owner_id, status, shard, total) VALUES (OLD.owner_id, OLD.status, my_shard, 0), (NEW.owner_id, NEW.status, my_shard, 0) ON CONFLICT DO NOTHING;
        UPDATE ${schema}.asset_counts SET total = total + CASE WHEN owner_id = NEW.owner_id AND status = NEW.status THEN 1 ELSE -1 END, moves = moves + 1
          WHERE shard = my_shard AND ((owner_id = OLD.owner_id AND status = OLD.status) OR (owner_id = NEW.owner_id AND status = NEW.status));
      ELSIF OLD.created_at IS DISTINCT FROM NEW.created_at THEN
        INSERT INTO ${schema}.asset_counts AS c (owner_id, status, shard, total, moves) VALUES (NEW.owner_id, NEW.status, my_shard, 0, 1)
          ON CONFLICT (owner_id, status, shard) DO UPDATE SET moves = c.moves + 1;
      END IF;
      ${statusMoved(schema)}
      RETURN NULL;
    END
    $$`,
  ],
};
