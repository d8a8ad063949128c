import type { AssetRecord, ImageRecord, StoragePort } from '../../core/ports/storage.js';
import { copy, newestFirst, type MemoryStorageState } from './storage-state.js';
import { assertNewEvents, writeEvents } from './storage-webhooks.js';

/** The memory store's listings (slugs unique, writes at a revision) and their images. */
export function assetMethods(s: MemoryStorageState): Pick<StoragePort, 'createAsset' | 'getAsset' | 'listAssets' | 'listAssetsInStatus' | 'listDueScheduled' | 'updateAsset' | 'deleteAsset' | 'addImage' | 'listImages'> {
  const { slugs } = s;
  return {
    async createAsset(asset, events) {
      assertNewEvents(s, events);
      if (slugs.has(asset.slug)) return { outcome: 'slug_taken' };
      if (s.assets.has(asset.id)) throw new Error(`memoryStorage: asset ${asset.id} exists`);
      s.assets.set(asset.id, copy(asset));
      slugs.set(asset.slug, asset.id);
      writeEvents(s, events);
      return { outcome: 'created', asset: copy(asset) };
    },
    async getAsset(id) {
      const asset = s.assets.get(id);
      return asset ? copy(asset) : null;
    },
    async listAssets({ ownerId, status, limit, offset }) {
      const matching = [...s.assets.values()].filter((a) => a.owner_id === ownerId && (!status || a.status === status)).sort(newestFirst);
      return { items: matching.slice(offset, offset + limit).map(copy), total: matching.length };
    },
    async listAssetsInStatus(status, limit, offset) {
      const matching = [...s.assets.values()]
        .filter((a) => a.status === status)
        .sort((a, b) => (a.updated_at === b.updated_at ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.updated_at < b.updated_at ? -1 : 1));
      return { items: matching.slice(offset, offset + limit).map(copy), total: matching.length };
    },
    async listDueScheduled(nowIso, limit) {
      const now = Date.parse(nowIso);
      return [...s.assets.values()]
        .filter((a) => a.status === 'scheduled' && a.scheduled_publish_at !== null && Date.parse(a.scheduled_publish_at) <= now)
        .sort((a, b) => Date.parse(a.scheduled_publish_at!) - Date.parse(b.scheduled_publish_at!) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, limit)
        .map(copy);
    },
    async updateAsset(id, expectedRevision, changes, events) {
      assertNewEvents(s, events);
      const asset = s.assets.get(id);
      if (!asset) return { outcome: 'missing' };
      if (asset.revision !== expectedRevision) return { outcome: 'stale' };
      if (changes.slug !== undefined && changes.slug !== asset.slug) {
        const holder = slugs.get(changes.slug);
        if (holder && holder !== id) return { outcome: 'slug_taken' };
        slugs.delete(asset.slug);
        slugs.set(changes.slug, id);
      }
      const updated: AssetRecord = { ...asset, ...copy(changes), revision: asset.revision + 1 };
      s.assets.set(id, updated);
      // A replaced file is garbage from this change on (port: listUploadGarbage).
      const replaced = asset.file?.storage_path;
      if (changes.file !== undefined && replaced && replaced !== changes.file?.storage_path) s.garbage.set(replaced, replaced);
      writeEvents(s, events);
      return { outcome: 'updated', asset: copy(updated), previous: copy(asset) };
    },
    async deleteAsset(id, expectedRevision, events) {
      assertNewEvents(s, events);
      const asset = s.assets.get(id);
      if (!asset) return { outcome: 'missing' };
      if (asset.revision !== expectedRevision) return { outcome: 'stale' };
      s.assets.delete(id);
      slugs.delete(asset.slug);
      const images = [...s.images.values()].filter((image) => image.asset_id === id);
      for (const image of images) s.images.delete(image.id);
      const uploads = [...s.uploads.values()].filter((upload) => upload.asset_id === id);
      for (const upload of uploads) {
        s.uploads.delete(upload.storage_path);
        s.garbage.set(upload.storage_path, upload.storage_path);
      }
      writeEvents(s, events);
      return { outcome: 'deleted', asset, images, uploads: uploads.map(copy) };
    },

    async addImage(image, max, events) {
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
    },
    async listImages(assetId) {
      return [...s.images.values()]
        .filter((image) => image.asset_id === assetId)
        .sort((a, b) => Number(b.is_primary) - Number(a.is_primary) || a.position - b.position)
        .map(copy);
    },
  };
}
