import * as v from 'valibot';
import { parseOptions } from '../../core/options.js';
import { applyChanges, type StoragePort } from '../../core/ports/storage.js';
import { boundedChangeVersion, strictChangeVersion, type ChangeVersion } from './change-version.js';
import { sqlState, type PgDriver, type PgRow, type PgSession } from './driver.js';
import { idempotencyMethods } from '../sql/idempotency.js';
import { postgresSession } from './dialect.js';
import { uploadMethods } from './uploads.js';
import { webhookMethods, writeEvents } from './webhooks.js';
import { openPostgres, type PostgresOptions } from './options.js';
import { statements, updatedColumns, type QueryName } from './queries.js';
import { accounts, assets, categories, decode, encode, images, tokens, uploads, type RecordTable } from './records.js';

export type PostgresStorageOptions = PostgresOptions & {
  /**
   * Trades the read cache's strict default for no database round trip per request: what an
   * instance keeps may be this much older than the database (docs/adapters.md, "The read cache
   * across instances"). Left out: strict, one round trip per request, and a write acknowledged by
   * any instance is seen by the next request to every instance.
   */
  maxStalenessMs?: number;
};

const CacheOptionsSchema = v.object({
  maxStalenessMs: v.optional(v.pipe(v.number('maxStalenessMs must be a number'), v.integer('maxStalenessMs must be a whole number'), v.minValue(10, 'maxStalenessMs must be 10 or more'))),
});

export interface PostgresStorage extends StoragePort {
  /** `host:port/database`, for messages (never the password). */
  readonly where: string;
  /** Ends the pool's connections once the calls in flight are done; the storage answers nothing afterwards. */
  close(): Promise<void>;
}

const copy = <T>(value: T): T => structuredClone(value);


/** Thrown inside updateAsset's transaction to roll it back when the new slug is taken. */
class SlugTaken extends Error {}

const who = 'marketkit postgresStorage';

/**
 * The storage port on PostgreSQL 15+, through node-postgres: a pool, the schema migrated at open
 * under an advisory lock. Each method is one statement or one transaction holding the row locks
 * it needs, so it is atomic against any other caller, on this pool or any other instance's.
 * `changeVersion()` is strict by default (one statement per request) or, with `maxStalenessMs`,
 * kept by notifications and a poll (change-version.ts).
 */
export async function postgresStorage(options: PostgresStorageOptions): Promise<PostgresStorage> {
  const { maxStalenessMs } = parseOptions(CacheOptionsSchema, { maxStalenessMs: options.maxStalenessMs }, who);
  const db = await openPostgres(options, who);
  try {
    const versions = maxStalenessMs === undefined ? strictChangeVersion(db) : await boundedChangeVersion(db, { maxStalenessMs, onError: options.onError });
    return storageOn(db, versions);
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
}

/** The methods that write a record the read cache may keep: all but touchToken (a token's last use), tryLease and the idempotency keys'. */
const writes = [
  'insertAccount',
  'updateAccount',
  'insertToken',
  'revokeToken',
  'insertCategory',
  'renameCategory',
  'createAsset',
  'updateAsset',
  'deleteAsset',
  'recordUpload',
  'setUploadState',
  'forgetUploads',
  'addImage',
] as const satisfies readonly (keyof StoragePort)[];

function storageOn(db: PgDriver, versions: ChangeVersion): PostgresStorage {
  const storage = storageMethods(db, versions);
  const wrote = versions.wrote;
  if (wrote) {
    // Settled, committed or not (a lost connection may hide a commit): the version moves before the caller goes on.
    for (const name of writes) {
      const write = storage[name] as (...args: unknown[]) => Promise<unknown>;
      (storage as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => write(...args).finally(wrote);
    }
  }
  return storage;
}

function storageMethods(db: PgDriver, versions: ChangeVersion): PostgresStorage {
  const on = (session: PgSession) => {
    const rows = async (name: QueryName, ...params: unknown[]) => (await session.query(statements[name], params)).rows;
    const row = async (name: QueryName, ...params: unknown[]): Promise<PgRow | undefined> => (await rows(name, ...params))[0];
    const run = async (name: QueryName, ...params: unknown[]) => (await session.query(statements[name], params)).rowCount;
    const one = async <R>(t: RecordTable<R>, name: QueryName, ...params: unknown[]): Promise<R | null> => {
      const found = await row(name, ...params);
      return found ? decode(t, found) : null;
    };
    const all = async <R>(t: RecordTable<R>, name: QueryName, ...params: unknown[]): Promise<R[]> => (await rows(name, ...params)).map((r) => decode(t, r));
    return { rows, row, run, one, all };
  };
  const { rows, row, run, one, all } = on(db);
  // The SQL core's session on this pool (adapters/sql/): the families written once.
  const sql = postgresSession(db);

  return {
    where: db.where,

    async insertAccount(account) {
      await run('insertAccount', ...encode(accounts, account));
    },
    async getAccount(id) {
      return one(accounts, 'getAccount', id);
    },
    async listAccounts(limit, offset) {
      const [items, count] = await Promise.all([all(accounts, 'listAccounts', limit, offset), row('countAccounts')]);
      return { items, total: Number(count?.total ?? 0) };
    },
    async findAccountByUsername(username) {
      return one(accounts, 'findAccountByUsername', username);
    },
    async updateAccount(id, changes) {
      return db.transaction(async (session) => {
        const tx = on(session);
        const current = await tx.one(accounts, 'getAccountForUpdate', id);
        if (!current) return null;
        const updated = applyChanges(current, changes);
        await tx.run('updateAccount', ...encode(accounts, updated, updatedColumns(accounts)));
        return updated;
      });
    },

    async insertToken(token) {
      await run('insertToken', ...encode(tokens, token));
    },
    async findTokenByHash(hash) {
      return one(tokens, 'findTokenByHash', hash);
    },
    async getToken(id) {
      return one(tokens, 'getToken', id);
    },
    async listTokens(accountId) {
      return all(tokens, 'listTokens', accountId);
    },
    async revokeToken(accountId, id, at, events) {
      if (!events?.length) return one(tokens, 'revokeToken', at, id, accountId);
      return db.transaction(async (session) => {
        const tx = on(session);
        // The event only with the first revocation: the UPDATE changes a live token or nothing.
        if ((await tx.run('revokeLiveToken', at, id, accountId)) === 1) await writeEvents(session, events);
        return tx.one(tokens, 'getAccountToken', id, accountId);
      });
    },
    async touchToken(id, at) {
      await run('touchToken', at, id);
    },

    async insertCategory(category) {
      await run('insertCategory', ...encode(categories, category));
    },
    async getCategory(id) {
      return one(categories, 'getCategory', id);
    },
    async renameCategory(id, name) {
      return one(categories, 'renameCategory', name, id);
    },
    async listCategories() {
      // Sorted here as the other adapters sort, by locale, whatever the database's collation.
      return (await all(categories, 'listCategories')).sort((a, b) => a.name.localeCompare(b.name));
    },

    async createAsset(asset, events) {
      // Without events the insert is the whole change: one statement.
      if (!events?.length) return (await run('createAsset', ...encode(assets, asset))) === 0 ? { outcome: 'slug_taken' } : { outcome: 'created', asset: copy(asset) };
      return db.transaction(async (session) => {
        if ((await on(session).run('createAsset', ...encode(assets, asset))) === 0) return { outcome: 'slug_taken' } as const;
        await writeEvents(session, events);
        return { outcome: 'created', asset: copy(asset) } as const;
      });
    },
    async getAsset(id) {
      return one(assets, 'getAsset', id);
    },
    async listAssets({ ownerId, status, limit, offset }) {
      const [items, count] = status
        ? await Promise.all([all(assets, 'listAssetsByStatus', ownerId, status, limit, offset), row('countAssetsByStatus', ownerId, status)])
        : await Promise.all([all(assets, 'listAssets', ownerId, limit, offset), row('countAssets', ownerId)]);
      return { items, total: Number(count?.total ?? 0) };
    },
    async listAssetsInStatus(status, limit, offset) {
      const [items, count] = await Promise.all([all(assets, 'listAssetsInStatus', status, limit, offset), row('countAssetsInStatus', status)]);
      return { items, total: Number(count?.total ?? 0) };
    },
    async listDueScheduled(nowIso, limit) {
      // Normalized so that text order is time order whatever offset the caller wrote.
      return all(assets, 'listDueScheduled', new Date(nowIso).toISOString(), limit);
    },
    async updateAsset(id, expectedRevision, changes, events) {
      try {
        return await db.transaction(async (session) => {
          const tx = on(session);
          // The row lock: a concurrent updater waits here, then reads the revision this one wrote.
          const previous = await tx.one(assets, 'getAssetForUpdate', id);
          if (!previous) return { outcome: 'missing' } as const;
          if (previous.revision !== expectedRevision) return { outcome: 'stale' } as const;
          const asset = { ...applyChanges(previous, changes), revision: previous.revision + 1 };
          try {
            if ((await tx.run('updateAsset', ...encode(assets, asset, updatedColumns(assets)), expectedRevision)) === 0) return { outcome: 'stale' } as const;
          } catch (error) {
            // The slug's unique index refused the new slug: roll back, answer slug_taken.
            if (sqlState(error) === '23505' && (error as { constraint?: string }).constraint === 'assets_by_slug') throw new SlugTaken();
            throw error;
          }
          // A replaced file is garbage from this commit on (port: listUploadGarbage).
          const replaced = previous.file?.storage_path;
          if (changes.file !== undefined && replaced && replaced !== changes.file?.storage_path) await tx.run('queueGarbage', replaced);
          await writeEvents(session, events);
          return { outcome: 'updated', asset, previous } as const;
        });
      } catch (error) {
        if (error instanceof SlugTaken) return { outcome: 'slug_taken' };
        throw error;
      }
    },
    async deleteAsset(id, expectedRevision, events) {
      return db.transaction(async (session) => {
        const tx = on(session);
        const asset = await tx.one(assets, 'getAssetForDelete', id);
        if (!asset) return { outcome: 'missing' } as const;
        if (asset.revision !== expectedRevision) return { outcome: 'stale' } as const;
        const gallery = await tx.all(images, 'listImages', id);
        const issued = await tx.all(uploads, 'uploadsOfAsset', id);
        await tx.run('deleteImagesOfAsset', id);
        // Every upload of the listing is garbage from this commit on, until forgetUploads.
        await tx.run('queueGarbageOfAsset', id);
        await tx.run('deleteUploadsOfAsset', id);
        await tx.run('deleteAsset', id, expectedRevision);
        await writeEvents(session, events);
        return { outcome: 'deleted', asset, images: gallery, uploads: issued } as const;
      });
    },

    ...uploadMethods({ rows, row, run, one }),
    async addImage(image, max, events) {
      return db.transaction(async (session) => {
        const tx = on(session);
        // The asset's row lock orders concurrent adds: each counts after the previous one committed.
        if (!(await tx.row('lockAssetForImage', image.asset_id))) return { outcome: 'missing' } as const;
        const same = await tx.one(images, 'imageByPath', image.asset_id, image.storage_path);
        if (same) return { outcome: 'exists', image: same } as const;
        const stats = await tx.row('imageStats', image.asset_id);
        const count = Number(stats?.count ?? 0);
        if (count >= max) return { outcome: 'limit' } as const;
        const added = { ...copy(image), position: stats?.last == null ? 0 : Number(stats.last) + 1, is_primary: count === 0 };
        await tx.run('insertImage', ...encode(images, added));
        await writeEvents(session, events);
        return { outcome: 'added', image: copy(added) } as const;
      });
    },
    async listImages(assetId) {
      return all(images, 'listImages', assetId);
    },

    ...idempotencyMethods(sql, who),
    ...webhookMethods(db),

    async ping() {
      await row('ping');
    },
    changeVersion: versions.changeVersion,
    async close() {
      await versions.close();
      await db.close();
    },
  };
}
