import * as v from 'valibot';
import type { VersionsPort } from '../../core/ports/versions.js';
import type { DashboardPort } from '../../core/ports/dashboard.js';
import { parseOptions } from '../../core/options.js';
import type { StoragePort } from '../../core/ports/storage.js';
import type { UploadStatePort } from '../../core/ports/upload-state.js';
import { sqlStorageMethods } from '../sql/storage.js';
import { boundedChangeVersion, strictChangeVersion, type ChangeVersion } from './change-version.js';
import { postgresSession } from './dialect.js';
import type { PgDriver } from './driver.js';
import { openPostgres, type PostgresOptions } from './options.js';
import { statements } from './queries.js';

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
  /** The upload-state port on this pool (docs/uploads.md): closed with the storage. */
  readonly uploadStates: UploadStatePort;
  /** Versions of published listings (core/ports/versions.ts; docs/moderation.md, "Versions"). */
  readonly versions: VersionsPort;
  /** The dashboard's sessions and sign-in links (core/ports/dashboard.ts; docs/dashboard.md). */
  readonly dashboard: DashboardPort;
  /** The pool now (connections open, idle, queries waiting): createMarketplace reports it as metrics (docs/operations.md). */
  poolStats(): { total: number; idle: number; waiting: number };
  /** Ends the pool's connections once the calls in flight are done; the storage answers nothing afterwards (nor do its upload states). */
  close(): Promise<void>;
}

const who = 'marketkit postgresStorage';

/**
 * The storage port on PostgreSQL 15+, through node-postgres: a pool, the schema migrated at open
 * under an advisory lock, and the SQL core (adapters/sql/) over it in PostgreSQL's words (dialect.ts). Each method is one statement or one transaction holding the row locks
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
    // The error that counts is the one thrown; a pool that fails to close too adds nothing.
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
  'reserveUpload',
  'forgetUploads',
  'addImage',
  'arrangeImages',
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
    const { versions: port } = storage;
    for (const name of ['createVersion', 'updateVersion', 'swapVersion'] as const) {
      const write = port[name] as (...args: unknown[]) => Promise<unknown>;
      (port as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => write(...args).finally(wrote);
    }
  }
  return storage;
}

function storageMethods(db: PgDriver, versions: ChangeVersion): PostgresStorage {
  return {
    where: db.where,
    ...sqlStorageMethods(postgresSession(db), who),
    async ping() {
      await db.query(statements.ping);
    },
    changeVersion: versions.changeVersion,
    changeVersions: versions.changeVersions,
    poolStats: () => db.poolStats(),
    async close() {
      await versions.close();
      await db.close();
    },
  };
}
