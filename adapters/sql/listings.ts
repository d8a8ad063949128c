/**
 * Categories, listings and their images (core/ports/listings.ts) on the SQL core: the reads here,
 * the writes in listing-writes.ts, the statements in listing-statements.ts.
 */
import type { CategoriesPort, ListingsPort, OutboxEvent } from '../../core/ports/storage.js';
import { foldAscii, type AssetQuery } from '../../core/ports/listings.js';
import { groupedCreates } from './create-groups.js';
import type { EventCtes } from './event-ctes.js';
import { anchorOptions, listingStatements, wordIndexCap } from './listing-statements.js';
import { addImage, arrangeImages, createOne, deleteAsset, seedListings, updateAsset, type SqlListings } from './listing-writes.js';
import { offsetAnchors } from './offset-anchors.js';
import { recordReader } from './rows.js';
import type { SqlDatabase, SqlRow, SqlSession } from './session.js';
import { assets, categories, decode, encode, images, jsonValue } from './tables.js';

export { anchorOptions, listingStatements } from './listing-statements.js';

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
  const l: SqlListings = { db, s: listingStatements(db.dialect), writeEvents, eventCtes, read: recordReader(db), anchors: offsetAnchors(db, anchorOptions), createTexts: [] };
  const { s } = l;
  const { one, all } = l.read;
  return {
    ...categoryMethods(l),
    // Where one statement writes a listing with its events (PostgreSQL), the creates of one turn
    // of the event loop share one (create-groups.ts).
    createAsset: eventCtes ? groupedCreates(db, eventCtes, createOne(l)) : createOne(l),
    getAsset: (id) => one(assets, s.getAsset, id),
    listAssets: (query) => listAssets(l, query),
    listAssetsInStatus: (status, limit, offset, after) => listAssetsInStatus(l, status, limit, offset, after),
    seedListings: (records) => seedListings(l, records),
    // Normalized so that text order is time order whatever offset the caller wrote.
    listDueScheduled: (nowIso, limit) => all(assets, s.listDueScheduled, new Date(nowIso).toISOString(), limit),
    updateAsset: updateAsset(l),
    deleteAsset: deleteAsset(l),
    addImage: addImage(l),
    arrangeImages: arrangeImages(l),
    listImages: (assetId) => all(images, s.listImages, assetId),
    getAssetWithImages: (id) => getAssetWithImages(l, id),
  };
}

function categoryMethods({ db, s, read: { one, all } }: SqlListings): CategoriesPort {
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
  };
}

type AnchoredName = 'Assets' | 'AssetsByStatus' | 'AssetsInStatus';

/** An offset page from the list's anchor with its kept total, or null: then the plain OFFSET. */
async function anchored(l: SqlListings, list: AnchoredName, name: string, counterParams: unknown[], filterParams: unknown[], limit: number, offset: number, count: string) {
  if (offset < anchorOptions.every) return null;
  const statements = { chain: l.s[`anchorChain${list}`], page: l.s[`anchored${list}`] };
  const [rows, [counted]] = await Promise.all([l.anchors.page(name, statements, counterParams, filterParams, limit, offset), l.db.all(count, counterParams)]);
  return rows && { items: rows.map((row) => decode(assets, row)), total: Number(counted?.total ?? 0) };
}

async function listAssets(l: SqlListings, { ownerId, status, limit, offset, after, search }: Parameters<ListingsPort['listAssets']>[0]) {
  const { s } = l;
  if (search !== undefined) return searchAssets(l, { ownerId, status, limit, offset, after }, foldAscii(search));
  const fromAnchor = after
    ? null
    : status
      ? await anchored(l, 'AssetsByStatus', `owner\0${ownerId}\0${status}`, [ownerId, status], [ownerId, status], limit, offset, s.countAssetsByStatus)
      : await anchored(l, 'Assets', `owner\0${ownerId}`, [ownerId], [ownerId], limit, offset, s.countAssets);
  if (fromAnchor) return fromAnchor;
  const at = after ? [after.key, after.id, limit] : [limit, offset];
  return status
    ? l.read.page(assets, after ? s.listAssetsByStatusAfter : s.listAssetsByStatus, [ownerId, status, ...at], s.countAssetsByStatus, [ownerId, status])
    : l.read.page(assets, after ? s.listAssetsAfter : s.listAssets, [ownerId, ...at], s.countAssets, [ownerId]);
}

/**
 * A search's page and its counted total (listing-statements.ts, searchOf): by the word index when
 * the text has three characters or more and the index finds at most wordIndexCap listings of the
 * store for it, by the owner's list otherwise; the folded text once for the title, once for the slug.
 */
async function searchAssets(l: SqlListings, { ownerId, status, limit, offset, after }: Omit<AssetQuery, 'search'>, folded: string) {
  const { s } = l;
  const at = after ? [after.key, after.id, limit] : [limit, offset];
  const term = [...folded].length >= 3 ? l.db.dialect.wordIndex.term(folded) : null;
  const [candidates] = term === null ? [] : await l.db.all(s.wordIndexCandidates, [term]);
  if (candidates && Number(candidates.total) <= wordIndexCap) {
    const filter = [term, ownerId, ...(status ? [status] : []), folded, folded];
    const list = status ? (after ? s.indexedSearchAssetsByStatusAfter : s.indexedSearchAssetsByStatus) : after ? s.indexedSearchAssetsAfter : s.indexedSearchAssets;
    return l.read.page(assets, list, [...filter, ...at], status ? s.countIndexedSearchAssetsByStatus : s.countIndexedSearchAssets, filter);
  }
  const filter = [ownerId, ...(status ? [status] : []), folded, folded];
  const list = status ? (after ? s.searchAssetsByStatusAfter : s.searchAssetsByStatus) : after ? s.searchAssetsAfter : s.searchAssets;
  return l.read.page(assets, list, [...filter, ...at], status ? s.countSearchAssetsByStatus : s.countSearchAssets, filter);
}

async function listAssetsInStatus(l: SqlListings, ...[status, limit, offset, after]: Parameters<ListingsPort['listAssetsInStatus']>) {
  const { s } = l;
  const fromAnchor = after ? null : await anchored(l, 'AssetsInStatus', `queue\0${status}`, [`assets:${status}`], [status], limit, offset, s.countAssetsInStatus);
  if (fromAnchor) return fromAnchor;
  const at = after ? [after.key, after.id, limit] : [limit, offset];
  return l.read.page(assets, after ? s.listAssetsInStatusAfter : s.listAssetsInStatus, [status, ...at], s.countAssetsInStatus, [`assets:${status}`]);
}

/** The asset with its images, read in one statement. */
async function getAssetWithImages({ db, s }: SqlListings, id: string) {
  const [row] = await db.all(s.getAssetWithImages, [id]);
  if (!row) return null;
  const found = jsonValue(row.marketkit_images) as SqlRow[];
  const decoded = found.map((image) => decode(images, image));
  // SQLite's json_group_array keeps the inner query's order in practice, not by its documentation.
  if (decoded.length > 1) decoded.sort((a, b) => Number(b.is_primary) - Number(a.is_primary) || a.position - b.position);
  return { asset: decode(assets, row), images: decoded };
}
