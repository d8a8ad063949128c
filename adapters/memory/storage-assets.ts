import type { AssetRecord, ImageRecord, ListingsPort, StoragePort } from '../../core/ports/storage.js';
import { copy, type MemoryStorageState } from './storage-state.js';
import { assertNewEvents, writeEvents } from './storage-webhooks.js';
import { assetMatches, foldAscii, searchTrigrams, type ListPosition } from '../../core/ports/listings.js';
import { SortedKeys } from './sorted-keys.js';
import { ownerKeys, type ListIndexes } from './list-indexes.js';

/** The memory store's listings (slugs unique, writes at a revision) and their images. */
export function assetMethods(
  s: MemoryStorageState,
  indexes: ListIndexes,
): Pick<StoragePort, 'createAsset' | 'getAsset' | 'listAssets' | 'listAssetsInStatus' | 'listDueScheduled' | 'updateAsset' | 'deleteAsset' | 'addImage' | 'arrangeImages' | 'listImages' | 'seedListings'> {
  const { slugs } = s;
  const records = (ids: string[]) => ids.map((id) => copy(s.assets.get(id)!));
  const found = ({ ids, total }: { ids: string[]; total: number }) => ({ items: records(ids), total });
  return {
    async createAsset(asset, events) {
      assertNewEvents(s, events);
      if (slugs.has(asset.slug)) return { outcome: 'slug_taken' };
      if (s.assets.has(asset.id)) throw new Error(`memoryStorage: asset ${asset.id} exists`);
      s.assets.set(asset.id, copy(asset));
      slugs.set(asset.slug, asset.id);
      indexes.assetAdded(asset);
      writeEvents(s, events);
      return { outcome: 'created', asset: copy(asset) };
    },
    async seedListings(assets) {
      for (const asset of assets) {
        if (slugs.has(asset.slug) || s.assets.has(asset.id)) throw new Error(`memoryStorage.seedListings: asset ${asset.id} (slug ${asset.slug}) exists`);
      }
      for (const asset of assets) {
        s.assets.set(asset.id, copy(asset));
        slugs.set(asset.slug, asset.id);
      }
      // One sort on the next list rather than a binary insert per record.
      indexes.drop();
    },
    async getAsset(id) {
      const asset = s.assets.get(id);
      return asset ? copy(asset) : null;
    },
    async listAssets({ ownerId, status, limit, offset, after, search }) {
      const keys = ownerKeys(indexes.get(), ownerId, status);
      if (search !== undefined) return found(searchPage(s, indexes, { ownerId, ...(status ? { status } : {}), keys }, foldAscii(search), limit, offset, after));
      return { items: keys ? records(keys.page('desc', limit, offset, after)) : [], total: keys?.size ?? 0 };
    },
    async listAssetsInStatus(status, limit, offset, after) {
      const keys = indexes.get().byStatus.get(status);
      return { items: keys ? records(keys.page('asc', limit, offset, after)) : [], total: keys?.size ?? 0 };
    },
    async listDueScheduled(nowIso, limit) {
      const now = Date.parse(nowIso);
      return [...s.assets.values()]
        .filter((a) => a.status === 'scheduled' && a.scheduled_publish_at !== null && Date.parse(a.scheduled_publish_at) <= now)
        .sort((a, b) => Date.parse(a.scheduled_publish_at!) - Date.parse(b.scheduled_publish_at!) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, limit)
        .map(copy);
    },
    updateAsset: async (id, expectedRevision, changes, events) => updateAsset(s, indexes, id, expectedRevision, changes, events),
    deleteAsset: async (id, expectedRevision, events) => deleteAsset(s, indexes, id, expectedRevision, events),
    addImage: async (image, max, events) => addImage(s, image, max, events),
    arrangeImages: async (assetId, orderedIds, events) => arrangeImages(s, assetId, orderedIds, events),
    async listImages(assetId) {
      return [...s.images.values()]
        .filter((image) => image.asset_id === assetId)
        .sort((a, b) => Number(b.is_primary) - Number(a.is_primary) || a.position - b.position)
        .map(copy);
    },
  };
}

/**
 * A search's page (AssetQuery.search), the total counting every match: from the word index's
 * listings of the text's rarest trigram when they are fewer than the owner's list (flat in the
 * owner's listings for a text few hold), else from the owner's list read in full, in its order
 * (a text of one or two characters, or one that most of the owner's listings hold).
 */
function searchPage(s: MemoryStorageState, indexes: ListIndexes, query: { ownerId: string; status?: string; keys: SortedKeys | undefined }, folded: string, limit: number, offset: number, after?: ListPosition) {
  const { keys } = query;
  if (!keys) return { ids: [], total: 0 };
  const grams = searchTrigrams(folded);
  const words = grams.length ? indexes.words() : null;
  const rarest = words ? grams.map((gram) => words.get(gram)).reduce<Set<string> | undefined>((least, ids) => (!least || !ids || ids.size < least.size ? (ids ?? new Set()) : least), undefined) : undefined;
  if (rarest && rarest.size < keys.size) {
    // The matches in the owner list's own order and paging: a SortedKeys of them alone.
    const matches = new SortedKeys();
    matches.load(
      [...rarest]
        .map((id) => s.assets.get(id)!)
        .filter((asset) => asset.owner_id === query.ownerId && (!query.status || asset.status === query.status) && assetMatches(asset, folded))
        .map((asset) => ({ key: asset.created_at, id: asset.id })),
    );
    return { ids: matches.page('desc', limit, offset, after), total: matches.size };
  }
  const every = keys.page('desc', keys.size, 0);
  // The keys after `after` are the list's tail: matches from that index on make the page, each record tested once.
  const from = after ? every.length - keys.page('desc', keys.size, 0, after).length : 0;
  const ids: string[] = [];
  let total = 0;
  for (let i = 0; i < every.length; i++) {
    if (!assetMatches(s.assets.get(every[i]!)!, folded)) continue;
    if (i >= from && (after ? ids.length < limit : total >= offset && total < offset + limit)) ids.push(every[i]!);
    total++;
  }
  return { ids, total };
}

function updateAsset(s: MemoryStorageState, indexes: ListIndexes, ...[id, expectedRevision, changes, events]: Parameters<ListingsPort['updateAsset']>): Awaited<ReturnType<ListingsPort['updateAsset']>> {
  assertNewEvents(s, events);
  const asset = s.assets.get(id);
  if (!asset) return { outcome: 'missing' };
  if (asset.revision !== expectedRevision) return { outcome: 'stale' };
  if (changes.slug !== undefined && changes.slug !== asset.slug) {
    const holder = s.slugs.get(changes.slug);
    if (holder && holder !== id) return { outcome: 'slug_taken' };
    s.slugs.delete(asset.slug);
    s.slugs.set(changes.slug, id);
  }
  const updated: AssetRecord = { ...asset, ...copy(changes), revision: asset.revision + 1 };
  s.assets.set(id, updated);
  indexes.assetRemoved(asset);
  indexes.assetAdded(updated);
  // A replaced file is garbage from this change on (port: listUploadGarbage).
  const replaced = asset.file?.storage_path;
  if (changes.file !== undefined && replaced && replaced !== changes.file?.storage_path) s.garbage.set(replaced, replaced);
  writeEvents(s, events);
  return { outcome: 'updated', asset: copy(updated), previous: copy(asset) };
}

/** The listing with its images and versions; its uploads become garbage. */
function deleteAsset(s: MemoryStorageState, indexes: ListIndexes, ...[id, expectedRevision, events]: Parameters<ListingsPort['deleteAsset']>): Awaited<ReturnType<ListingsPort['deleteAsset']>> {
  assertNewEvents(s, events);
  const asset = s.assets.get(id);
  if (!asset) return { outcome: 'missing' };
  if (asset.revision !== expectedRevision) return { outcome: 'stale' };
  s.assets.delete(id);
  s.slugs.delete(asset.slug);
  indexes.assetRemoved(asset);
  const images = [...s.images.values()].filter((image) => image.asset_id === id);
  for (const image of images) s.images.delete(image.id);
  // Its versions go with it; their files are uploads of the listing, garbage below.
  for (const version of [...s.versions.values()]) if (version.asset_id === id) s.versions.delete(version.id);
  const uploads = [...s.uploads.values()].filter((upload) => upload.asset_id === id);
  for (const upload of uploads) {
    s.uploads.delete(upload.storage_path);
    s.garbage.set(upload.storage_path, upload.storage_path);
  }
  writeEvents(s, events);
  return { outcome: 'deleted', asset, images, uploads: uploads.map(copy) };
}

function addImage(s: MemoryStorageState, ...[image, max, events]: Parameters<ListingsPort['addImage']>): Awaited<ReturnType<ListingsPort['addImage']>> {
  assertNewEvents(s, events);
  if (!s.assets.has(image.asset_id)) return { outcome: 'missing' };
  const existing = [...s.images.values()].filter((i) => i.asset_id === image.asset_id);
  const same = existing.find((i) => i.storage_path === image.storage_path);
  if (same) return { outcome: 'exists', image: copy(same) };
  if (existing.length >= max) return { outcome: 'limit' };
  const position = existing.reduce((next, i) => Math.max(next, i.position + 1), 0);
  const added: ImageRecord = { ...copy(image), position, is_primary: existing.length === 0 };
  s.images.set(added.id, added);
  writeEvents(s, events);
  return { outcome: 'added', image: copy(added) };
}

function arrangeImages(s: MemoryStorageState, ...[assetId, orderedIds, events]: Parameters<ListingsPort['arrangeImages']>): Awaited<ReturnType<ListingsPort['arrangeImages']>> {
  assertNewEvents(s, events);
  if (!s.assets.has(assetId)) return { outcome: 'missing' };
  const gallery = [...s.images.values()].filter((image) => image.asset_id === assetId);
  const named = new Set(orderedIds);
  if (named.size !== orderedIds.length || named.size !== gallery.length || gallery.some((image) => !named.has(image.id))) {
    return { outcome: 'mismatch', images: gallery.sort((a, b) => Number(b.is_primary) - Number(a.is_primary) || a.position - b.position).map(copy) };
  }
  const arranged = orderedIds.map((id, position) => ({ ...s.images.get(id)!, position, is_primary: position === 0 }));
  for (const image of arranged) s.images.set(image.id, image);
  writeEvents(s, events);
  return { outcome: 'arranged', images: arranged.map(copy) };
}
