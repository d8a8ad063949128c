/**
 * `marketkit serve`'s second step: what it keeps its data in. Opens the database or the data
 * directory (or neither, with --memory), the blob store, the rate limiter every instance counts
 * against, and Creator Studio's storage; `closeServeStores` closes them in the order they depend on.
 */
import { join } from 'node:path';
import type { S3Blobs } from '../adapters/s3/index.js';
import { sqliteRateLimiter, sqliteStudio, type SqliteStudio } from '../adapters/sqlite/index.js';
import type { RateLimits } from '../core/rate-limits.js';
import type { RateLimiterPort } from '../core/ports/rate-limit.js';
import type { UploadStatePort } from '../core/ports/upload-state.js';
import type { SharedSecrets } from './secrets.js';
import { UsageError } from './args.js';
import { openDataDir, type DataDir } from './data-dir.js';
import { openServeDatabase, type DatabaseUrl, type ServeDatabase } from './database.js';
import type { PostgresTuning } from './postgres-flags.js';
import { rateLimitFlags } from './rate-limit-flags.js';
import { blobsKind, checkS3Reachable, refuseStrayS3Flags, s3BlobsFromCli, type BlobsKind } from './s3-options.js';
import type { ServeOptions } from './serve-command.js';
import { connectionLost } from './serve-jobs.js';

/** What the options and the environment decided before anything opened (cli/serve.ts, checkServeSetup). */
export interface ServeSetup {
  /** MARKETKIT_SERVICE_KEY: the admin surface exists only with it. */
  serviceKey: string | undefined;
  database: DatabaseUrl | null;
  secrets: SharedSecrets;
  tuning: PostgresTuning;
}

export interface ServeStores {
  blobsChoice: BlobsKind | null;
  s3: S3Blobs | null;
  /** The PostgreSQL database, with --database-url. */
  pg: ServeDatabase | null;
  /** The data directory: neither --memory nor a database. */
  data: DataDir | null;
  /** The rate limits the flags gave (possibly none). */
  givenLimits: Partial<RateLimits>;
  rateLimits: Partial<RateLimits> | undefined;
  /** The limiter shared by every instance; null: the marketplace counts in memory. */
  rateLimiter: (RateLimiterPort & { close(): void | Promise<void> }) | null;
  studio: SqliteStudio | null;
  uploadStates: UploadStatePort | undefined;
}

export async function openServeStores(options: ServeOptions, env: NodeJS.ProcessEnv, { database, tuning }: ServeSetup): Promise<ServeStores> {
  const blobsChoice = blobsKind(options.blobs, env);
  refuseStrayS3Flags(options, blobsChoice);
  if (blobsChoice === 'fs' && options.memory) throw new UsageError('--blobs fs keeps files in the data directory, and --memory has none: use --blobs memory or --blobs s3 with --memory');
  // Checked before anything is opened: a bucket that does not answer stops the start.
  const s3 = blobsChoice === 's3' ? s3BlobsFromCli(options, env) : null;
  if (s3) await checkS3Reachable(s3);
  // With a database, the data directory holds only the files of --blobs fs (and no secrets: they come from the environment).
  const pg = database ? await openServeDatabase(database, { blobs: blobsChoice, dataDir: options['data-dir'], onLost: connectionLost, tuning }) : null;
  const data = options.memory || pg ? null : await openDataDir(options['data-dir'], { create: true, driver: options['sqlite-driver'] });
  // Several servers on one data directory share each caller's rate-limit budget through this file.
  const givenLimits = rateLimitFlags.toLimits(options);
  const rateLimits = Object.keys(givenLimits).length > 0 ? givenLimits : undefined;
  const rateLimiter = await openRateLimiter(options, database, pg, data, rateLimits);
  // Creator Studio keeps its records in the same database file as the listings (docs/studio.md).
  const studio = data ? await sqliteStudio({ path: data.database, ...(data.driver ? { driver: data.driver } : {}) }) : null;
  // Uploads in progress live where every instance (and the next start) finds them: the database, or
  // the data directory's file, on the storage's own pool or connection (its options, closed with it).
  const uploadStates = (pg ?? data)?.storage.uploadStates;
  return { blobsChoice, s3, pg, data, givenLimits, rateLimits, rateLimiter, studio, uploadStates };
}

/**
 * Every instance must count against one budget: with a database, the database (or Redis) keeps
 * the counts; with a data directory, a file beside it; --rate-limit-store redis://... anywhere.
 */
async function openRateLimiter(
  options: ServeOptions,
  database: DatabaseUrl | null,
  pg: ServeDatabase | null,
  data: DataDir | null,
  rateLimits: Partial<RateLimits> | undefined,
): Promise<ServeStores['rateLimiter']> {
  const store = options['rate-limit-store'] ?? (pg ? 'postgres' : null);
  if (store === 'postgres' && !database) throw new UsageError('--rate-limit-store postgres counts in the --database-url database: give --database-url, or a redis:// URL');
  const limits = rateLimits ? { limits: rateLimits } : {};
  if (store === 'postgres') return (await import('../adapters/postgres/index.js')).postgresRateLimiter({ url: database!.url, schema: database!.schema, ...limits });
  if (store) return (await import('../adapters/redis/index.js')).redisRateLimiter({ url: store, ...limits });
  if (data) return sqliteRateLimiter({ path: join(data.dir, 'rate-limits.db'), ...(data.driver ? { driver: data.driver } : {}), ...limits });
  return null;
}

/** When the server did not start: what opened is closed again (Creator Studio's file closes with the process). */
export async function closeStoresAfterFailedStart({ rateLimiter, data, pg }: ServeStores): Promise<void> {
  rateLimiter?.close();
  await data?.close();
  await pg?.close();
}

/** At the stop, after the server and the jobs: the limiter, Creator Studio, then the storage. */
export async function closeServeStores({ rateLimiter, studio, data, pg }: ServeStores): Promise<void> {
  await rateLimiter?.close();
  await studio?.close();
  await data?.close();
  await pg?.close();
}
