import type { Migration } from './migration.js';

/**
 * Kept totals for the lists (docs/adapters.md, "Lists at scale"): a seller's listings per status
 * (`asset_counts`), every listing per status (the moderation queue) and the accounts (`row_counts`,
 * one shard here: SQLite has one writer at a time). Triggers keep them in the writing transaction,
 * whatever writes (the storage, a bulk seed, an operator's SQL), so that a page's total is a read
 * of a few rows, not a COUNT(*) that grows with the catalogue. Filled from the rows already there.
 */
/** A trigger's statements that count the NEW row in, and the OLD row out. */
const countNew = `INSERT INTO asset_counts (owner_id, status, total) VALUES (NEW.owner_id, NEW.status, 1)
        ON CONFLICT (owner_id, status) DO UPDATE SET total = total + 1;
      INSERT INTO row_counts (name, shard, total) VALUES ('assets:' || NEW.status, 0, 1)
        ON CONFLICT (name, shard) DO UPDATE SET total = total + 1;`;
const uncountOld = `UPDATE asset_counts SET total = total - 1 WHERE owner_id = OLD.owner_id AND status = OLD.status;
      UPDATE row_counts SET total = total - 1 WHERE name = 'assets:' || OLD.status AND shard = 0;`;

export const listingCounts: Migration = {
  version: 11,
  name: 'listing-counts',
  statements: [
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
};
