import * as v from 'valibot';
import { parseOptions } from '../../core/options.js';
import { applyChanges, type StoragePort } from '../../core/ports/storage.js';
import type { SqlRow, SqlValue, SqliteDriverName, SqliteStatement } from './drivers/driver.js';
import { idempotencyMethods } from '../sql/idempotency.js';
import { sqliteSession } from './dialect.js';
import { webhookMethods } from './webhooks.js';
import { ConnectionOptionsSchema, openDatabase } from './open-database.js';
import { queries, updatedColumns, type QueryName } from './queries.js';
import { accounts, assets, categories, decode, encode, images, tokens, uploads, type RecordTable } from './records.js';


export type SqliteStorageOptions = v.InferInput<typeof ConnectionOptionsSchema>;

export interface SqliteStorage extends StoragePort {
  /** The driver in use. */
  readonly driver: SqliteDriverName;
  /** The database file, as given. */
  readonly path: string;
  /** Closes the database; the storage answers nothing afterwards. */
  close(): Promise<void>;
}

const copy = <T>(value: T): T => structuredClone(value);


/**
 * The storage port on SQLite: one database file in WAL mode, opened and migrated here. Concurrent
 * writers (other processes on the same file) wait up to `busyTimeoutMs` for the lock. Each
 * method is one statement or one BEGIN IMMEDIATE transaction, so it is atomic against any other
 * caller, in this process or another.
 */
export async function sqliteStorage(options: SqliteStorageOptions): Promise<SqliteStorage> {
  const config = parseOptions(ConnectionOptionsSchema, options, 'marketkit sqliteStorage');
  const db = await openDatabase({ ...config, foreignKeys: true }, 'marketkit sqliteStorage');

  // Every statement prepared once, at open: a typo in one fails here, not on some later request.
  const prepared = Object.fromEntries(Object.entries(queries).map(([name, sql]) => [name, db.prepare(sql)])) as Record<QueryName, SqliteStatement>;
  const q = (name: QueryName): SqliteStatement => prepared[name];
  const row = (name: QueryName, ...params: SqlValue[]) => q(name).get(...params);
  const rows = (name: QueryName, ...params: SqlValue[]) => q(name).all(...params);
  const run = (name: QueryName, ...params: SqlValue[]) => q(name).run(...params).changes;
  const one = <R>(t: RecordTable<R>, found: SqlRow | undefined): R | null => (found ? decode(t, found) : null);
  // The SQL core's session on this connection (adapters/sql/): the families written once.
  const sql = sqliteSession(db);
  let seen: SqlRow = {};
  let version = 0;
  // The outbox: events are written inside the transaction of the change it comes with.
  const webhooks = webhookMethods(db, q);
  const { writeEvents } = webhooks;

  return {
    driver: db.name,
    path: config.path,

    async insertAccount(account) {
      run('insertAccount', ...encode(accounts, account));
    },
    async getAccount(id) {
      return one(accounts, q('getAccount').get(id));
    },
    async listAccounts(limit, offset) {
      const items = rows('listAccounts', limit, offset).map((r) => decode(accounts, r));
      return { items, total: Number(row('countAccounts')?.total ?? 0) };
    },
    async findAccountByUsername(username) {
      return one(accounts, q('findAccountByUsername').get(username));
    },
    async updateAccount(id, changes) {
      return db.transaction(() => {
        const current = one(accounts, q('getAccount').get(id));
        if (!current) return null;
        const updated = applyChanges(current, changes);
        run('updateAccount', ...encode(accounts, updated, updatedColumns(accounts)));
        return updated;
      });
    },

    async insertToken(token) {
      run('insertToken', ...encode(tokens, token));
    },
    async findTokenByHash(hash) {
      return one(tokens, q('findTokenByHash').get(hash));
    },
    async getToken(id) {
      return one(tokens, q('getToken').get(id));
    },
    async listTokens(accountId) {
      return rows('listTokens', accountId).map((r) => decode(tokens, r));
    },
    async revokeToken(accountId, id, at, events) {
      // COALESCE keeps the first revocation time; the UPDATE is the whole change.
      if (!events?.length) return run('revokeToken', at, id, accountId) === 0 ? null : one(tokens, q('getAccountToken').get(id, accountId));
      return db.transaction(() => {
        if (run('revokeLiveToken', at, id, accountId) === 1) writeEvents(events);
        return one(tokens, q('getAccountToken').get(id, accountId));
      });
    },
    async touchToken(id, at) {
      run('touchToken', at, id);
    },

    async insertCategory(category) {
      run('insertCategory', ...encode(categories, category));
    },
    async getCategory(id) {
      return one(categories, q('getCategory').get(id));
    },
    async renameCategory(id, name) {
      if (run('renameCategory', name, id) === 0) return null;
      return one(categories, q('getCategory').get(id));
    },
    async listCategories() {
      // Sorted here as the memory adapter sorts, by locale, rather than by SQLite's byte order.
      return rows('listCategories')
        .map((r) => decode(categories, r))
        .sort((a, b) => a.name.localeCompare(b.name));
    },

    async createAsset(asset, events) {
      const create = () => {
        if (run('createAsset', ...encode(assets, asset)) === 0) return { outcome: 'slug_taken' } as const;
        writeEvents(events);
        return { outcome: 'created', asset: copy(asset) } as const;
      };
      // Without events the insert is the whole change: one statement, no transaction needed.
      return events?.length ? db.transaction(create) : create();
    },
    async getAsset(id) {
      return one(assets, q('getAsset').get(id));
    },
    async listAssets({ ownerId, status, limit, offset }) {
      const found = status
        ? { items: rows('listAssetsByStatus', ownerId, status, limit, offset), count: row('countAssetsByStatus', ownerId, status) }
        : { items: rows('listAssets', ownerId, limit, offset), count: row('countAssets', ownerId) };
      return { items: found.items.map((r) => decode(assets, r)), total: Number(found.count?.total ?? 0) };
    },
    async listAssetsInStatus(status, limit, offset) {
      const items = rows('listAssetsInStatus', status, limit, offset).map((r) => decode(assets, r));
      return { items, total: Number(row('countAssetsInStatus', status)?.total ?? 0) };
    },
    async listDueScheduled(nowIso, limit) {
      // Normalized so that text order is time order whatever offset the caller wrote.
      return rows('listDueScheduled', new Date(nowIso).toISOString(), limit).map((r) => decode(assets, r));
    },
    async updateAsset(id, expectedRevision, changes, events) {
      return db.transaction(() => {
        const previous = one(assets, q('getAsset').get(id));
        if (!previous) return { outcome: 'missing' } as const;
        if (previous.revision !== expectedRevision) return { outcome: 'stale' } as const;
        if (changes.slug !== undefined && changes.slug !== previous.slug) {
          const holder = row('assetIdBySlug', changes.slug);
          if (holder && holder.id !== id) return { outcome: 'slug_taken' } as const;
        }
        const asset = { ...applyChanges(previous, changes), revision: previous.revision + 1 };
        if (run('updateAsset', ...encode(assets, asset, updatedColumns(assets)), expectedRevision) === 0) return { outcome: 'stale' } as const;
        // A replaced file is garbage from this commit on (port: listUploadGarbage).
        const replaced = previous.file?.storage_path;
        if (changes.file !== undefined && replaced && replaced !== changes.file?.storage_path) run('queueGarbage', replaced);
        writeEvents(events);
        return { outcome: 'updated', asset, previous } as const;
      });
    },
    async deleteAsset(id, expectedRevision, events) {
      return db.transaction(() => {
        const asset = one(assets, q('getAsset').get(id));
        if (!asset) return { outcome: 'missing' } as const;
        if (asset.revision !== expectedRevision) return { outcome: 'stale' } as const;
        const gallery = rows('listImages', id).map((r) => decode(images, r));
        const issued = rows('uploadsOfAsset', id).map((r) => decode(uploads, r));
        run('deleteImagesOfAsset', id);
        run('queueGarbageOfAsset', id);
        run('deleteUploadsOfAsset', id);
        run('deleteAsset', id, expectedRevision);
        writeEvents(events);
        return { outcome: 'deleted', asset, images: gallery, uploads: issued } as const;
      });
    },

    async recordUpload(upload) {
      run('recordUpload', ...encode(uploads, upload), upload.asset_id);
    },
    async getUpload(storagePath) {
      return one(uploads, q('getUpload').get(storagePath));
    },
    async findUploadByPublicUrl(publicUrl) {
      return one(uploads, q('findUploadByPublicUrl').get(publicUrl));
    },
    async setUploadState(storagePath, from, to, size) {
      const slots = [0, 1, 2, 3].map((i) => from[Math.min(i, from.length - 1)] ?? null);
      return run('setUploadState', to, size ?? null, storagePath, ...slots) === 1;
    },
    async listUploadGarbage(expiredBefore, limit) {
      const found = rows('listGarbage', limit).map((r) => r.storage_path as string);
      if (found.length < limit) {
        const cutoff = new Date(expiredBefore).toISOString();
        for (const r of rows('listExpiredUploads', cutoff, limit - found.length)) found.push(r.storage_path as string);
      }
      return found;
    },
    async forgetUploads(storagePaths) {
      db.transaction(() => {
        for (const path of storagePaths) {
          run('forgetGarbage', path);
          run('forgetUpload', path);
        }
      });
    },
    async storageUse(accountId) {
      return Number(row('storageUse', accountId)?.bytes ?? 0);
    },
    async tryLease(name, holder, nowMs, ttlMs) {
      return run('tryLease', name, holder, nowMs + ttlMs, nowMs) === 1;
    },

    async addImage(image, max, events) {
      return db.transaction(() => {
        if (!row('getAsset', image.asset_id)) return { outcome: 'missing' } as const;
        const same = one(images, q('imageByPath').get(image.asset_id, image.storage_path));
        if (same) return { outcome: 'exists', image: same } as const;
        const stats = row('imageStats', image.asset_id);
        const count = Number(stats?.count ?? 0);
        if (count >= max) return { outcome: 'limit' } as const;
        const added = { ...copy(image), position: stats?.last == null ? 0 : Number(stats.last) + 1, is_primary: count === 0 };
        run('insertImage', ...encode(images, added));
        writeEvents(events);
        return { outcome: 'added', image: copy(added) } as const;
      });
    },
    async listImages(assetId) {
      return rows('listImages', assetId).map((r) => decode(images, r));
    },

    ...idempotencyMethods(sql, 'marketkit sqliteStorage'),
    ...webhooks.methods,

    async ping() {
      row('ping');
    },
    changeVersion() {
      // total_changes() counts this connection's writes (rolled-back ones too: a spare change is
      // harmless); data_version moves when another connection commits, in this process or another.
      const now = q('changeVersion').get()!;
      if (now.own !== seen.own || now.others !== seen.others) {
        seen = now;
        version++;
      }
      return version;
    },
    async close() {
      db.close();
    },
  };
}
