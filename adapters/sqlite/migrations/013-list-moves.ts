import type { Migration } from './migration.js';

/**
 * A change counter per kept total (docs/adapters.md, "Offset anchors"): `moves` of an
 * `asset_counts` row goes up whenever a position in that seller's list (of that status) may have
 * moved, and of a `row_counts` status row whenever a position in that status's queue may have
 * moved. A total alone cannot say so: a create and a delete leave it equal and shift every
 * position after them. The offset anchors of a list hold only under the counter they were read
 * with. Bumped by the same triggers as the totals (migration 11's, replaced), and by a new one for
 * the sort keys: a seller's list is in `created_at` order, the queue in `updated_at` order, so
 * an edit of a queued listing (its `updated_at`) moves it to the queue's end.
 */
const countNew = `INSERT INTO asset_counts (owner_id, status, total, moves) VALUES (NEW.owner_id, NEW.status, 1, 1)
        ON CONFLICT (owner_id, status) DO UPDATE SET total = total + 1, moves = moves + 1;
      INSERT INTO row_counts (name, shard, total, moves) VALUES ('assets:' || NEW.status, 0, 1, 1)
        ON CONFLICT (name, shard) DO UPDATE SET total = total + 1, moves = moves + 1;`;
const uncountOld = `UPDATE asset_counts SET total = total - 1, moves = moves + 1 WHERE owner_id = OLD.owner_id AND status = OLD.status;
      UPDATE row_counts SET total = total - 1, moves = moves + 1 WHERE name = 'assets:' || OLD.status AND shard = 0;`;

export const listMoves: Migration = {
  version: 13,
  name: 'list-moves',
  statements: [
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
};
