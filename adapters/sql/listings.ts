import { applyChanges, copyRecord, type CategoriesPort, type ListingsPort, type OutboxEvent } from '../../core/ports/storage.js';
import { groupedCreates } from './create-groups.js';
import { anchorChain, anchoredPage, offsetAnchors, type AnchoredList } from './offset-anchors.js';
import { recordReader } from './rows.js';
import type { SqlDatabase, SqlDialect, SqlRow, SqlSession } from './session.js';
import { insertInto, insertRowsInto, updateOf } from './statements.js';
import { assets, categories, columnsOf, decode, encode, images, jsonValue, sqlName, uploads, updatedColumns } from './tables.js';
import type { EventCtes } from './event-ctes.js';

/** The assets whose ids a subquery on an index answers (a page's rows, read once). */
const byKey = (ids: string) => `SELECT a.* FROM assets a JOIN (${ids}) page ON a.id = page.id`;

/** The lists whose offset pages start from an anchor (offset-anchors.ts): their counter, filter and order. */
const anchoredLists = {
  assets: { counter: 'FROM asset_counts WHERE owner_id = ?', filter: 'owner_id = ?', key: 'created_at', order: 'DESC' },
  assetsByStatus: { counter: 'FROM asset_counts WHERE owner_id = ? AND status = ?', filter: 'owner_id = ? AND status = ?', key: 'created_at', order: 'DESC' },
  assetsInStatus: { counter: 'FROM row_counts WHERE name = ?', filter: 'status = ?', key: 'updated_at', order: 'ASC' },
} satisfies Record<string, AnchoredList>;

/** Index entries between two anchors, and lists whose anchors a process keeps (docs/adapters.md, "Offset anchors"). */
export const anchorOptions = { every: 1000, lists: 256 };

/** The order of an asset's images: the primary first, then by position. */
const imageOrder = (alias: string) => `${alias}.is_primary DESC, ${alias}.${sqlName('position')} ASC`;

export const listingStatements = ({ lock, rowsAsJson }: SqlDialect) => ({
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
  // The asset with its images in one statement: one round trip on PostgreSQL, one read transaction
  // (and its WAL lock) on SQLite, where each statement of a read takes its own.
  getAssetWithImages: `SELECT a.*, ${rowsAsJson('images i WHERE i.asset_id = a.id', 'i', columnsOf(images), imageOrder('i'))} AS marketkit_images FROM assets a WHERE a.id = ?`,
  deleteImagesOfAsset: 'DELETE FROM images WHERE asset_id = ?',
});

/** Rows per INSERT of seedListings: 21 parameters each, well under SQLite's 32,766 and PostgreSQL's 65,535. */
const seedBatch = 500;

/** Thrown inside updateAsset's transaction to roll it back when the new slug is taken. */
class SlugTaken extends Error {}

/**
 * Categories, listings and their images (core/ports/listings.ts). Each write is one statement or
 * one transaction that locks the rows it reads before it writes; `writeEvents` writes the change's
 * events on that transaction (webhooks.ts).
 */
export function listingMethods(
  db: SqlDatabase,
  writeEvents: (tx: SqlSession, events: readonly OutboxEvent[]) => Promise<void>,
  eventCtes?: EventCtes,
): ListingsPort & CategoriesPort {
  const s = listingStatements(db.dialect);
  // The one-statement create's text for each number of events, made on first use: built and
  // hashed again on every create (the named statement's key is the text) it cost about 35 µs.
  const createTexts: string[] = [];
  const createText = (ctes: EventCtes, events: number) => (createTexts[events] ??= `WITH created AS (${s.createAsset} RETURNING id),\n    ${ctes.sql('created', events)}\n  SELECT count(*) AS created FROM created`);
  const { one, all, page } = recordReader(db);
  const anchors = offsetAnchors(db, anchorOptions);
  /** An offset page from the list's anchor with its kept total, or null: then the plain OFFSET. */
  const anchored = async (list: 'Assets' | 'AssetsByStatus' | 'AssetsInStatus', name: string, counterParams: unknown[], filterParams: unknown[], limit: number, offset: number, count: string) => {
    if (offset < anchorOptions.every) return null;
    const statements = { chain: s[`anchorChain${list}`], page: s[`anchored${list}`] };
    const [rows, [counted]] = await Promise.all([anchors.page(name, statements, counterParams, filterParams, limit, offset), db.all(count, counterParams)]);
    return rows && { items: rows.map((row) => decode(assets, row)), total: Number(counted?.total ?? 0) };
  };
  /** A create on its own: one statement, or a transaction where the events need statements of their own. */
  const createOne: ListingsPort['createAsset'] = async (asset, events) => {
    if (events?.length && eventCtes) {
      // One statement (PostgreSQL): the listing, its events and their deliveries, atomic as any
      // statement is, with no BEGIN and COMMIT round trips; the events only if the listing was inserted.
      const [row] = await db.all(createText(eventCtes, events.length), [...encode(db.dialect, assets, asset), ...eventCtes.params(events)]);
      return Number(row?.created) === 0 ? ({ outcome: 'slug_taken' } as const) : ({ outcome: 'created', asset: copyRecord(asset) } as const);
    }
    const create = async (on: SqlSession) => {
      if ((await on.run(s.createAsset, encode(db.dialect, assets, asset))) === 0) return { outcome: 'slug_taken' } as const;
      if (events?.length) await writeEvents(on, events);
      return { outcome: 'created', asset: copyRecord(asset) } as const;
    };
    // Without events the insert is the whole change: one statement, no transaction needed.
    return events?.length ? db.transaction(create) : create(db);
  };
  return {
    async insertCategory(category) {
      await db.run(s.insertCategory, encode(db.dialect, categories, category));
    },
    async getCategory(id) {
      return one(categories, s.getCategory, id);
    },
    async renameCategory(id, name) {
      if ((await db.run(s.renameCategory, [name, id])) === 0) return null;
      return one(categories, s.getCategory, id);
    },
    async listCategories() {
      // Sorted here as the memory adapter sorts, by locale, whatever the database's collation.
      return (await all(categories, s.listCategories)).sort((a, b) => a.name.localeCompare(b.name));
    },

    // Where one statement writes a listing with its events (PostgreSQL), the creates of one turn
    // of the event loop share one (create-groups.ts).
    createAsset: eventCtes ? groupedCreates(db, eventCtes, createOne) : createOne,
    async getAsset(id) {
      return one(assets, s.getAsset, id);
    },
    async listAssets({ ownerId, status, limit, offset, after }) {
      const fromAnchor = after
        ? null
        : status
          ? await anchored('AssetsByStatus', `owner\0${ownerId}\0${status}`, [ownerId, status], [ownerId, status], limit, offset, s.countAssetsByStatus)
          : await anchored('Assets', `owner\0${ownerId}`, [ownerId], [ownerId], limit, offset, s.countAssets);
      if (fromAnchor) return fromAnchor;
      const at = after ? [after.key, after.id, limit] : [limit, offset];
      return status
        ? page(assets, after ? s.listAssetsByStatusAfter : s.listAssetsByStatus, [ownerId, status, ...at], s.countAssetsByStatus, [ownerId, status])
        : page(assets, after ? s.listAssetsAfter : s.listAssets, [ownerId, ...at], s.countAssets, [ownerId]);
    },
    async listAssetsInStatus(status, limit, offset, after) {
      const fromAnchor = after ? null : await anchored('AssetsInStatus', `queue\0${status}`, [`assets:${status}`], [status], limit, offset, s.countAssetsInStatus);
      if (fromAnchor) return fromAnchor;
      const at = after ? [after.key, after.id, limit] : [limit, offset];
      return page(assets, after ? s.listAssetsInStatusAfter : s.listAssetsInStatus, [status, ...at], s.countAssetsInStatus, [`assets:${status}`]);
    },
    async seedListings(records) {
      if (records.length === 0) return;
      // One transaction, multi-row INSERTs of seedBatch rows (one prepared statement for every full batch).
      await db.transaction(async (tx) => {
        for (let at = 0; at < records.length; at += seedBatch) {
          const batch = records.slice(at, at + seedBatch);
          await tx.run(insertRowsInto(assets, batch.length), batch.flatMap((asset) => encode(db.dialect, assets, asset)));
        }
      });
    },
    async listDueScheduled(nowIso, limit) {
      // Normalized so that text order is time order whatever offset the caller wrote.
      return all(assets, s.listDueScheduled, new Date(nowIso).toISOString(), limit);
    },
    async updateAsset(id, expectedRevision, changes, events) {
      try {
        return await db.transaction(async (tx) => {
          const previous = await recordReader(tx).one(assets, s.getAssetForUpdate, id);
          if (!previous) return { outcome: 'missing' } as const;
          if (previous.revision !== expectedRevision) return { outcome: 'stale' } as const;
          const asset = { ...applyChanges(previous, changes), revision: previous.revision + 1 };
          try {
            if ((await tx.run(s.updateAsset, [...encode(db.dialect, assets, asset, updatedColumns(assets)), expectedRevision])) === 0) return { outcome: 'stale' } as const;
          } catch (error) {
            // The slug's unique index refused the new slug: roll back, answer slug_taken.
            if (db.dialect.isUniqueViolation(error, 'assets_by_slug')) throw new SlugTaken();
            throw error;
          }
          // A replaced file is garbage from this commit on (port: listUploadGarbage).
          const replaced = previous.file?.storage_path;
          if (changes.file !== undefined && replaced && replaced !== changes.file?.storage_path) await tx.run(s.queueGarbage, [replaced]);
          await writeEvents(tx, events ?? []);
          return { outcome: 'updated', asset, previous } as const;
        });
      } catch (error) {
        if (error instanceof SlugTaken) return { outcome: 'slug_taken' };
        throw error;
      }
    },
    async deleteAsset(id, expectedRevision, events) {
      return db.transaction(async (tx) => {
        const read = recordReader(tx);
        const asset = await read.one(assets, s.getAssetForDelete, id);
        if (!asset) return { outcome: 'missing' } as const;
        if (asset.revision !== expectedRevision) return { outcome: 'stale' } as const;
        const gallery = await read.all(images, s.listImages, id);
        const issued = (await read.all(uploads, s.uploadsOfAsset, id)).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.storage_path.localeCompare(b.storage_path));
        await tx.run(s.deleteImagesOfAsset, [id]);
        // Every upload of the listing is garbage from this commit on, until forgetUploads.
        await tx.run(s.queueGarbageOfAsset, [id]);
        await tx.run(s.deleteUploadsOfAsset, [id]);
        await tx.run(s.deleteAsset, [id, expectedRevision]);
        await writeEvents(tx, events ?? []);
        return { outcome: 'deleted', asset, images: gallery, uploads: issued } as const;
      });
    },

    async addImage(image, max, events) {
      return db.transaction(async (tx) => {
        const read = recordReader(tx);
        // The asset's row lock orders concurrent adds: each counts after the previous one committed.
        if ((await tx.all(s.lockAssetForImage, [image.asset_id])).length === 0) return { outcome: 'missing' } as const;
        const same = await read.one(images, s.imageByPath, image.asset_id, image.storage_path);
        if (same) return { outcome: 'exists', image: same } as const;
        const [stats] = await tx.all(s.imageStats, [image.asset_id]);
        const count = Number(stats?.count ?? 0);
        if (count >= max) return { outcome: 'limit' } as const;
        const added = { ...copyRecord(image), position: stats?.last == null ? 0 : Number(stats.last) + 1, is_primary: count === 0 };
        await tx.run(s.insertImage, encode(db.dialect, images, added));
        await writeEvents(tx, events ?? []);
        return { outcome: 'added', image: copyRecord(added) } as const;
      });
    },
    async listImages(assetId) {
      return all(images, s.listImages, assetId);
    },
    async getAssetWithImages(id: string) {
      const [row] = await db.all(s.getAssetWithImages, [id]);
      if (!row) return null;
      const found = jsonValue(row.marketkit_images) as SqlRow[];
      const decoded = found.map((image) => decode(images, image));
      // SQLite's json_group_array keeps the inner query's order in practice, not by its documentation.
      if (decoded.length > 1) decoded.sort((a, b) => Number(b.is_primary) - Number(a.is_primary) || a.position - b.position);
      return { asset: decode(assets, row), images: decoded };
    },
  };
}
