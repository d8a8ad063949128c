/** The statements of categories, listings and their images (listings.ts, listing-writes.ts), each written once for both dialects. */
import { anchorChain, anchoredPage, type AnchoredList } from './offset-anchors.js';
import type { SqlDialect } from './session.js';
import { insertInto, updateOf } from './statements.js';
import { assets, categories, columnsOf, images, sqlName } from './tables.js';

/** The assets whose ids a subquery on an index answers (a page's rows, read once). */
const byKey = (ids: string) => `SELECT a.* FROM assets a JOIN (${ids}) page ON a.id = page.id`;

/** The lists whose offset pages start from an anchor (offset-anchors.ts): their counter, filter and order. */
export const anchoredLists = {
  assets: { counter: 'FROM asset_counts WHERE owner_id = ?', filter: 'owner_id = ?', key: 'created_at', order: 'DESC' },
  assetsByStatus: { counter: 'FROM asset_counts WHERE owner_id = ? AND status = ?', filter: 'owner_id = ? AND status = ?', key: 'created_at', order: 'DESC' },
  assetsInStatus: { counter: 'FROM row_counts WHERE name = ?', filter: 'status = ?', key: 'updated_at', order: 'ASC' },
} satisfies Record<string, AnchoredList>;

/** Index entries between two anchors, and lists whose anchors a process keeps (docs/adapters.md, "Offset anchors"). */
export const anchorOptions = { every: 1000, lists: 256 };

/** The order of an asset's images: the primary first, then by position. */
const imageOrder = (alias: string) => `${alias}.is_primary DESC, ${alias}.${sqlName('position')} ASC`;

/** A search asks the word index first when it finds at most this many listings of the store (listings.ts, searchAssets). */
export const wordIndexCap = 1000;

/**
 * A search (AssetQuery.search), two ways, the same answer (docs/adapters.md, "Search"):
 *
 * - by the word index (migration 28), when it finds at most wordIndexCap listings of the whole store
 *   for the text: those candidates, the owner's that contain the folded text, sorted (at most
 *   wordIndexCap rows); flat in the seller's listings;
 * - otherwise (a text of one or two characters, or one that many listings hold): the owner's rows on
 *   the owner index (or the owner and status one), in its order, those whose title or slug contains
 *   the folded text; linear in the owner's rows, and so is its count.
 */
const searchOf = ({ containsFolded, wordIndex }: SqlDialect) => {
  const matches = (row: string) => `(${containsFolded(`${row}title`)} OR ${containsFolded(`${row}slug`)})`;
  const where = (status: string) => `owner_id = ?${status} AND ${matches('')}`;
  const order = ' ORDER BY created_at DESC, id DESC';
  const indexed = (status: string) => `FROM (${wordIndex.candidates}) c CROSS JOIN assets a WHERE a.id = c.id AND a.owner_id = ?${status} AND ${matches('a.')}`;
  const indexedOrder = ' ORDER BY a.created_at DESC, a.id DESC';
  return {
    searchAssets: `SELECT * FROM assets WHERE ${where('')}${order} LIMIT ? OFFSET ?`,
    searchAssetsByStatus: `SELECT * FROM assets WHERE ${where(' AND status = ?')}${order} LIMIT ? OFFSET ?`,
    searchAssetsAfter: `SELECT * FROM assets WHERE ${where('')} AND (created_at, id) < (?, ?)${order} LIMIT ?`,
    searchAssetsByStatusAfter: `SELECT * FROM assets WHERE ${where(' AND status = ?')} AND (created_at, id) < (?, ?)${order} LIMIT ?`,
    countSearchAssets: `SELECT COUNT(*) AS total FROM assets WHERE ${where('')}`,
    countSearchAssetsByStatus: `SELECT COUNT(*) AS total FROM assets WHERE ${where(' AND status = ?')}`,
    // The word index's candidates for a text, counted up to one past the cap.
    wordIndexCandidates: `SELECT COUNT(*) AS total FROM (${wordIndex.candidates} LIMIT ${wordIndexCap + 1}) c`,
    indexedSearchAssets: `SELECT a.* ${indexed('')}${indexedOrder} LIMIT ? OFFSET ?`,
    indexedSearchAssetsByStatus: `SELECT a.* ${indexed(' AND a.status = ?')}${indexedOrder} LIMIT ? OFFSET ?`,
    indexedSearchAssetsAfter: `SELECT a.* ${indexed('')} AND (a.created_at, a.id) < (?, ?)${indexedOrder} LIMIT ?`,
    indexedSearchAssetsByStatusAfter: `SELECT a.* ${indexed(' AND a.status = ?')} AND (a.created_at, a.id) < (?, ?)${indexedOrder} LIMIT ?`,
    countIndexedSearchAssets: `SELECT COUNT(*) AS total ${indexed('')}`,
    countIndexedSearchAssetsByStatus: `SELECT COUNT(*) AS total ${indexed(' AND a.status = ?')}`,
  };
};

/** Every statement but a search's. */
const statementsOf = ({ lock, rowsAsJson }: SqlDialect) => ({
  insertCategory: insertInto(categories),
  getCategory: 'SELECT * FROM categories WHERE id = ?',
  renameCategory: 'UPDATE categories SET name = ? WHERE id = ?',
  listCategories: 'SELECT * FROM categories',

  // ON CONFLICT on the slug's unique index: a taken slug inserts nothing, in one statement (a
  // concurrent insert of the same slug waits for the first to commit, then inserts nothing).
  createAsset: `${insertInto(assets)} ON CONFLICT (slug) DO NOTHING`,
  getAsset: 'SELECT * FROM assets WHERE id = ?',
  // The row lock: a concurrent updater waits here, then reads the revision this one wrote.
  getAssetForUpdate: `SELECT * FROM assets WHERE id = ?${lock.update}`,
  getAssetForDelete: `SELECT * FROM assets WHERE id = ?${lock.delete}`,
  // Offset pages skip rows of the index only (the sort key and id are in it), then read the page's
  // rows: an OFFSET over SELECT * reads every row it skips. Linear in the offset (a B-tree keeps no
  // counts), so used below the first anchor only; past it, the anchored statements below.
  listAssets: `${byKey('SELECT id FROM assets WHERE owner_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?')} ORDER BY a.created_at DESC, a.id DESC`,
  listAssetsByStatus: `${byKey('SELECT id FROM assets WHERE owner_id = ? AND status = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?')} ORDER BY a.created_at DESC, a.id DESC`,
  listAssetsInStatus: `${byKey('SELECT id FROM assets WHERE status = ? ORDER BY updated_at ASC, id ASC LIMIT ? OFFSET ?')} ORDER BY a.updated_at ASC, a.id ASC`,
  // Keyset pages: a row value comparison, which SQLite (3.15 on) and PostgreSQL both take as the
  // index's range seek, ties of the timestamp included (EXPLAIN in docs/adapters.md, "Lists at scale").
  listAssetsAfter: 'SELECT * FROM assets WHERE owner_id = ? AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?',
  listAssetsByStatusAfter: 'SELECT * FROM assets WHERE owner_id = ? AND status = ? AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?',
  listAssetsInStatusAfter: 'SELECT * FROM assets WHERE status = ? AND (updated_at, id) > (?, ?) ORDER BY updated_at ASC, id ASC LIMIT ?',
  // Offset pages at or past the first anchor: the anchors read on, and a page from an anchor.
  anchorChainAssets: anchorChain(anchoredLists.assets),
  anchorChainAssetsByStatus: anchorChain(anchoredLists.assetsByStatus),
  anchorChainAssetsInStatus: anchorChain(anchoredLists.assetsInStatus),
  anchoredAssets: anchoredPage(anchoredLists.assets),
  anchoredAssetsByStatus: anchoredPage(anchoredLists.assetsByStatus),
  anchoredAssetsInStatus: anchoredPage(anchoredLists.assetsInStatus),
  // Totals are kept by triggers in the writing transaction (migration listing-counts), not counted:
  // a sum of at most seven rows per owner, of at most sixteen shards per status.
  countAssets: 'SELECT COALESCE(SUM(total), 0) AS total FROM asset_counts WHERE owner_id = ?',
  countAssetsByStatus: 'SELECT COALESCE(SUM(total), 0) AS total FROM asset_counts WHERE owner_id = ? AND status = ?',
  countAssetsInStatus: 'SELECT COALESCE(SUM(total), 0) AS total FROM row_counts WHERE name = ?',
  // Timestamps are stored as toISOString() text, so text order is time order.
  listDueScheduled: "SELECT * FROM assets WHERE status = 'scheduled' AND scheduled_publish_at <= ? ORDER BY scheduled_publish_at ASC, id ASC LIMIT ?",
  // The revision in the WHERE is the compare-and-set: a stale writer changes no row.
  updateAsset: updateOf(assets, ' AND revision = ?'),
  deleteAsset: 'DELETE FROM assets WHERE id = ? AND revision = ?',
  uploadsOfAsset: 'SELECT * FROM uploads WHERE asset_id = ?',
  deleteUploadsOfAsset: 'DELETE FROM uploads WHERE asset_id = ?',
  queueGarbage: 'INSERT INTO upload_garbage (storage_path) VALUES (?) ON CONFLICT DO NOTHING',
  queueGarbageOfAsset: 'INSERT INTO upload_garbage (storage_path) SELECT storage_path FROM uploads WHERE asset_id = ? ON CONFLICT DO NOTHING',

  // addImage locks its asset's row first, so concurrent adds to one asset run one after another.
  lockAssetForImage: `SELECT id FROM assets WHERE id = ?${lock.update}`,
  insertImage: insertInto(images),
  imageByPath: 'SELECT * FROM images WHERE asset_id = ? AND storage_path = ?',
  imageStats: 'SELECT COUNT(*) AS count, MAX(position) AS last FROM images WHERE asset_id = ?',
  listImages: 'SELECT * FROM images WHERE asset_id = ? ORDER BY is_primary DESC, position ASC',
  // arrangeImages, under the asset's row lock: every position moved out of the way first (-1 - p
  // is negative, and distinct as p is) and no primary, so that neither unique index, (asset_id,
  // position) nor images_one_primary, sees two rows at once while each image takes its place.
  clearImageOrder: 'UPDATE images SET position = -1 - position, is_primary = ? WHERE asset_id = ?',
  placeImage: 'UPDATE images SET position = ?, is_primary = ? WHERE id = ? AND asset_id = ?',
  // The asset with its images in one statement: one round trip on PostgreSQL, one read transaction
  // (and its WAL lock) on SQLite, where each statement of a read takes its own.
  getAssetWithImages: `SELECT a.*, ${rowsAsJson('images i WHERE i.asset_id = a.id', 'i', columnsOf(images), imageOrder('i'))} AS marketkit_images FROM assets a WHERE a.id = ?`,
  deleteImagesOfAsset: 'DELETE FROM images WHERE asset_id = ?',
});

export const listingStatements = (dialect: SqlDialect) => ({ ...statementsOf(dialect), ...searchOf(dialect) });

export type ListingStatements = ReturnType<typeof listingStatements>;
