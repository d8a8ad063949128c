import type {
  AccountRecord,
  AssetRecord,
  CategoryRecord,
  ImageRecord,
  IssuedUploadRecord,
  StoragePort,
  TokenRecord,
} from '../../core/ports/storage.js';
import { LayeredMap, type ChangeCounter } from './layered-map.js';

/**
 * Records as they are kept: copies go in and copies come out, as with a real database. Records
 * are plain data (strings, numbers, booleans, null, arrays, plain objects), which this copies
 * several times faster than structuredClone, on every read.
 */
function copy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copy) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copy((value as Record<string, unknown>)[key]);
  return out as T;
}

const newestFirst = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
  a.created_at === b.created_at ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.created_at < b.created_at ? 1 : -1;

/**
 * Everything a memory store holds. Stored records are never changed in place (every change
 * stores a new object), so the maps can share them with snapshots: a snapshot freezes each map
 * and a restore puts the frozen maps back, in constant time (layered-map.ts).
 */
interface MemoryStorageState {
  accounts: LayeredMap<string, AccountRecord>;
  tokens: LayeredMap<string, TokenRecord>;
  categories: LayeredMap<string, CategoryRecord>;
  assets: LayeredMap<string, AssetRecord>;
  images: LayeredMap<string, ImageRecord>;
  uploads: LayeredMap<string, IssuedUploadRecord>;
  /** Storage paths of deleted listings' uploads whose blobs may still exist (path -> path). */
  garbage: LayeredMap<string, string>;
  /** Job leases: name -> holder and until when. */
  leases: LayeredMap<string, { holder: string; untilMs: number }>;
  /** slug -> asset id */
  slugs: LayeredMap<string, string>;
  /** hash -> token id */
  tokensByHash: LayeredMap<string, string>;
}

const stateKeys = ['accounts', 'tokens', 'categories', 'assets', 'images', 'uploads', 'garbage', 'leases', 'slugs', 'tokensByHash'] as const;

function emptyState(changes: ChangeCounter): MemoryStorageState {
  return Object.fromEntries(stateKeys.map((key) => [key, new LayeredMap(new Map(), changes)])) as unknown as MemoryStorageState;
}

/** A memory store's whole content at one moment, restorable any number of times. Opaque. */
export interface MemoryStorageSnapshot {
  readonly kind: 'memoryStorage';
  /** @internal */
  readonly maps: Readonly<Record<keyof MemoryStorageState, ReadonlyMap<string, unknown>>>;
}

export interface MemoryStorage extends StoragePort {
  /** The content now: constant time when nothing changed since the last snapshot or restore, else one copy of the maps (never of the records). */
  snapshot(): MemoryStorageSnapshot;
  /** Puts back the content of a snapshot of this store or another memory store, in constant time. */
  restore(snapshot: MemoryStorageSnapshot): void;
}

/**
 * The storage port in this process's memory. Every method runs to completion without awaiting in
 * between, so each is atomic against every other call, as the port requires.
 */
export function memoryStorage(): MemoryStorage {
  const changes: ChangeCounter = { count: 0 };
  const s = emptyState(changes);
  const { slugs, tokensByHash } = s;

  return {
    changeVersion: () => changes.count,
    snapshot() {
      const maps = Object.fromEntries(stateKeys.map((key) => [key, s[key].freeze()]));
      return { kind: 'memoryStorage', maps: maps as unknown as MemoryStorageSnapshot['maps'] };
    },
    restore(snapshot) {
      if (snapshot?.kind !== 'memoryStorage') throw new Error('memoryStorage.restore: pass a value returned by snapshot()');
      for (const key of stateKeys) (s[key] as LayeredMap<string, unknown>).thaw(snapshot.maps[key]);
    },

    async insertAccount(account) {
      if (s.accounts.has(account.id)) throw new Error(`memoryStorage: account ${account.id} exists`);
      for (const existing of s.accounts.values()) {
        if (existing.username === account.username) throw new Error(`memoryStorage: username ${account.username} is taken`);
      }
      s.accounts.set(account.id, copy(account));
    },
    async getAccount(id) {
      const account = s.accounts.get(id);
      return account ? copy(account) : null;
    },
    async findAccountByUsername(username) {
      for (const account of s.accounts.values()) if (account.username === username) return copy(account);
      return null;
    },
    async updateAccount(id, changes) {
      const account = s.accounts.get(id);
      if (!account) return null;
      const updated = { ...account, ...copy(changes) };
      s.accounts.set(id, updated);
      return copy(updated);
    },

    async insertToken(token) {
      if (s.tokens.has(token.id) || tokensByHash.has(token.hash)) throw new Error('memoryStorage: token exists');
      s.tokens.set(token.id, copy(token));
      tokensByHash.set(token.hash, token.id);
    },
    async findTokenByHash(hash) {
      const id = tokensByHash.get(hash);
      return id ? copy(s.tokens.get(id)!) : null;
    },
    async getToken(id) {
      const token = s.tokens.get(id);
      return token ? copy(token) : null;
    },
    async listTokens(accountId) {
      return [...s.tokens.values()]
        .filter((token) => token.account_id === accountId && !token.revoked_at)
        .sort(newestFirst)
        .map(copy);
    },
    async revokeToken(accountId, id, at) {
      const token = s.tokens.get(id);
      if (!token || token.account_id !== accountId) return null;
      if (token.revoked_at) return copy(token);
      const revoked = { ...token, revoked_at: at };
      s.tokens.set(id, revoked);
      return copy(revoked);
    },
    async touchToken(id, at) {
      const token = s.tokens.get(id);
      if (token) s.tokens.set(id, { ...token, last_used_at: at });
    },

    async insertCategory(category) {
      for (const existing of s.categories.values()) {
        if (existing.id === category.id || existing.slug === category.slug) throw new Error(`memoryStorage: category ${category.slug} exists`);
      }
      s.categories.set(category.id, copy(category));
    },
    async getCategory(id) {
      const category = s.categories.get(id);
      return category ? copy(category) : null;
    },
    async listCategories() {
      return [...s.categories.values()].sort((a, b) => a.name.localeCompare(b.name)).map(copy);
    },
    async renameCategory(id, name) {
      const category = s.categories.get(id);
      if (!category) return null;
      // A new record, never a change in place: snapshots share the records they hold.
      const renamed = { ...category, name };
      s.categories.set(id, renamed);
      return copy(renamed);
    },

    async createAsset(asset) {
      if (slugs.has(asset.slug)) return { outcome: 'slug_taken' };
      if (s.assets.has(asset.id)) throw new Error(`memoryStorage: asset ${asset.id} exists`);
      s.assets.set(asset.id, copy(asset));
      slugs.set(asset.slug, asset.id);
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
    async updateAsset(id, expectedRevision, changes) {
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
      return { outcome: 'updated', asset: copy(updated), previous: copy(asset) };
    },
    async deleteAsset(id, expectedRevision) {
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
      return { outcome: 'deleted', asset, images, uploads: uploads.map(copy) };
    },

    async recordUpload(upload) {
      if (s.assets.has(upload.asset_id)) s.uploads.set(upload.storage_path, copy(upload));
    },
    async getUpload(storagePath) {
      const upload = s.uploads.get(storagePath);
      return upload ? copy(upload) : null;
    },
    async setUploadState(storagePath, from, to, size) {
      const upload = s.uploads.get(storagePath);
      if (!upload || !from.includes(upload.state) || !s.assets.has(upload.asset_id)) return false;
      s.uploads.set(storagePath, { ...upload, state: to, size: size ?? upload.size });
      return true;
    },
    async listUploadGarbage(expiredBefore, limit) {
      const cutoff = Date.parse(expiredBefore);
      const found = [...s.garbage.values()].slice(0, limit);
      for (const upload of s.uploads.values()) {
        if (found.length >= limit) break;
        const asset = s.assets.get(upload.asset_id);
        if (upload.state === 'confirmed' || !(Date.parse(upload.expires_at) < cutoff) || s.garbage.has(upload.storage_path)) continue;
        const referenced =
          asset?.file?.storage_path === upload.storage_path ||
          [...s.images.values()].some((image) => image.asset_id === upload.asset_id && image.storage_path === upload.storage_path);
        if (!referenced) found.push(upload.storage_path);
      }
      return found;
    },
    async forgetUploads(storagePaths) {
      for (const path of storagePaths) {
        s.garbage.delete(path);
        const upload = s.uploads.get(path);
        if (upload) s.uploads.delete(path);
      }
    },
    async storageUse(accountId) {
      let bytes = 0;
      for (const upload of s.uploads.values()) {
        if ((upload.state === 'uploaded' || upload.state === 'confirmed') && s.assets.get(upload.asset_id)?.owner_id === accountId) bytes += upload.size ?? 0;
      }
      return bytes;
    },
    async tryLease(name, holder, nowMs, ttlMs) {
      const lease = s.leases.get(name);
      if (lease && lease.holder !== holder && lease.untilMs > nowMs) return false;
      s.leases.set(name, { holder, untilMs: nowMs + ttlMs });
      return true;
    },
    async findUploadByPublicUrl(publicUrl) {
      for (const upload of s.uploads.values()) if (upload.public_url === publicUrl) return copy(upload);
      return null;
    },

    async addImage(image, max) {
      if (!s.assets.has(image.asset_id)) return { outcome: 'missing' };
      const existing = [...s.images.values()].filter((i) => i.asset_id === image.asset_id);
      const same = existing.find((i) => i.storage_path === image.storage_path);
      if (same) return { outcome: 'exists', image: copy(same) };
      if (existing.length >= max) return { outcome: 'limit' };
      const position = existing.reduce((next, i) => Math.max(next, i.position + 1), 0);
      const added: ImageRecord = { ...copy(image), position, is_primary: existing.length === 0 };
      s.images.set(added.id, added);
      return { outcome: 'added', image: copy(added) };
    },
    async listImages(assetId) {
      return [...s.images.values()]
        .filter((image) => image.asset_id === assetId)
        .sort((a, b) => Number(b.is_primary) - Number(a.is_primary) || a.position - b.position)
        .map(copy);
    },

    async ping() {},
  };
}
