/**
 * Where a command's data lives when it is not a data directory: a PostgreSQL database named by
 * `--database-url` (env MARKETKIT_DATABASE_URL, then DATABASE_URL). Shared by serve, migrate, token
 * and admin, so that each says the same thing about the same mistakes.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as v from 'valibot';
import { fsBlobs } from '../adapters/fs/index.js';
import type { PostgresStorage, PostgresStudio } from '../adapters/postgres/index.js';
import { defaultSchema, schemaNameProblem } from '../adapters/postgres/schema-name.js';
import type { BlobPort } from '../core/ports/blobs.js';
import type { StoragePort } from '../core/ports/storage.js';
import { givenFlag, UsageError } from './args.js';
import { openDataDir, sqliteDriverFlag } from './data-dir.js';
import type { PostgresTuning } from './postgres-flags.js';

/** The `--database-url` flag, shared by every command that works on a server's data. */
export const databaseUrlFlag = {
  option: { 'database-url': { type: 'string' } },
  help: [
    '--database-url <url>',
    'Keep the data in this PostgreSQL 15+ database (postgres://user:password@host:5432/name) instead of a data directory (env MARKETKIT_DATABASE_URL, then DATABASE_URL; prefer the environment for a URL with a password: the process list shows flags).',
  ],
  schema: v.optional(v.string()),
} as const;

/** `--database-schema`, beside `--database-url` on every command that takes it. */
export const databaseSchemaFlag = {
  option: { 'database-schema': { type: 'string' } },
  help: [
    '--database-schema <name>',
    `With a database: the PostgreSQL schema MarketKit's tables live in, made when missing (env MARKETKIT_DATABASE_SCHEMA; default ${defaultSchema}; lowercase letters, digits and _). The tables of a database migrated by an earlier MarketKit (schema version 5 or below, in public) are moved there at the first start (docs/deploy.md).`,
  ],
  schema: v.optional(v.string()),
} as const;

/** Where the database URL came from, to name it in messages. */
export type DatabaseUrlSource = '--database-url' | 'MARKETKIT_DATABASE_URL' | 'DATABASE_URL';

export interface DatabaseUrl {
  url: string;
  source: DatabaseUrlSource;
  /** `host:port/database`, for messages and banners: never the user or password. */
  where: string;
  /** The schema of --database-schema or MARKETKIT_DATABASE_SCHEMA, checked; undefined for the adapters' default. */
  schema: string | undefined;
}

/** `host:port/database` of a postgres:// URL, without its credentials. */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {
    // Only for messages: a URL that does not parse is named without its parts (the driver says what is wrong with it).
    return '(the given database URL)';
  }
}

/**
 * The database URL from the flag, else MARKETKIT_DATABASE_URL, else DATABASE_URL; null when none
 * is set. With it, the schema from `schemaFlag` (--database-schema), else MARKETKIT_DATABASE_SCHEMA;
 * the flag without a database is refused (it would do nothing), the variable ignored.
 */
export function databaseUrlOf(flag: unknown, env: NodeJS.ProcessEnv, schemaFlag?: unknown): DatabaseUrl | null {
  const candidates: [DatabaseUrlSource, string | undefined][] = [
    ['--database-url', typeof flag === 'string' ? flag : undefined],
    ['MARKETKIT_DATABASE_URL', env.MARKETKIT_DATABASE_URL || undefined],
    ['DATABASE_URL', env.DATABASE_URL || undefined],
  ];
  const found = candidates.find(([, value]) => value !== undefined);
  if (!found) {
    if (typeof schemaFlag === 'string') throw new UsageError('--database-schema names a schema of the PostgreSQL database, and there is none: give --database-url, or leave out --database-schema');
    return null;
  }
  const [source, url] = found as [DatabaseUrlSource, string];
  if (!/^postgres(ql)?:\/\/./.test(url)) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
    throw new UsageError(
      `${source} must be a PostgreSQL URL such as postgres://user:password@host:5432/marketkit${scheme ? `, not a ${scheme}: URL` : ''}` +
        (source === 'DATABASE_URL' ? '. MarketKit keeps its data in PostgreSQL only: set MARKETKIT_DATABASE_URL, or unset DATABASE_URL to use a data directory.' : '.'),
    );
  }
  return { url, source, where: describeDatabaseUrl(url), schema: databaseSchemaOf(schemaFlag, env) };
}

function databaseSchemaOf(flag: unknown, env: NodeJS.ProcessEnv): string | undefined {
  const [source, schema] = typeof flag === 'string' ? ['--database-schema', flag] : ['MARKETKIT_DATABASE_SCHEMA', env.MARKETKIT_DATABASE_SCHEMA || undefined];
  if (schema === undefined) return undefined;
  const problem = schemaNameProblem(schema, source);
  if (problem) throw new UsageError(problem);
  return schema;
}

/** What token and admin work on: the storage, where it is (for messages), and how to close it. */
export interface CommandStore {
  storage: StoragePort;
  /** The SQLite file, or `PostgreSQL host:port/database`. */
  where: string;
  close(): Promise<void>;
}

/**
 * The storage of a command that works on existing data (token, admin): the database when a URL
 * is set, else the data directory (which must hold a database). Both named at once is refused.
 */
export async function openCommandStore(
  argv: readonly string[],
  values: { 'data-dir': string; 'database-url'?: string | undefined; 'database-schema'?: string | undefined },
  env: NodeJS.ProcessEnv,
): Promise<CommandStore> {
  const database = databaseUrlOf(values['database-url'], env, values['database-schema']);
  if (!database) {
    // token and admin open the data directory with the driver serve would pick (or MARKETKIT_SQLITE_DRIVER's).
    const driver = v.safeParse(sqliteDriverFlag.schema, sqliteDriverFlag.default(env));
    if (!driver.success) throw new UsageError(`MARKETKIT_SQLITE_DRIVER: ${driver.issues[0].message}`);
    const data = await openDataDir(values['data-dir'], { create: false, driver: driver.output });
    return { storage: data.storage, where: data.database, close: () => data.close() };
  }
  if (givenFlag(argv, 'data-dir')) {
    throw new UsageError(`give --data-dir or a database (${database.source}), not both: the data is in one or the other.`);
  }
  const { postgresStorage } = await import('../adapters/postgres/index.js');
  // One connection is all a command needs; the schema is migrated as at every open.
  const storage = await postgresStorage({ url: database.url, schema: database.schema, poolSize: 1 });
  return { storage, where: `PostgreSQL ${storage.where}`, close: () => storage.close() };
}

/**
 * Refuses what contradicts serving from a database, before anything opens: --memory; uploads kept
 * in memory or nowhere said (the files would not outlive the process, or not be shared); a
 * --data-dir that would hold nothing.
 */
export function refuseDatabaseContradictions(argv: readonly string[], values: { memory: boolean }, database: DatabaseUrl, blobs: 'fs' | 's3' | 'memory' | null): void {
  const named = database.source === '--database-url' ? '--database-url' : `a database (${database.source})`;
  if (values.memory) throw new UsageError(`--memory keeps everything in this process, and ${named} keeps it in PostgreSQL: give one of them${database.source === '--database-url' ? '' : `, or unset ${database.source}`}.`);
  if (blobs === null) {
    throw new UsageError(
      `with ${named}, say where uploads go: --blobs s3 (a bucket every instance shares; see marketkit serve --help) or --blobs fs (files under --data-dir, for instances on one machine).`,
    );
  }
  if (blobs === 'memory') throw new UsageError(`--blobs memory would lose every file when the process stops while ${named} keeps their records: use --blobs s3, or --blobs fs with --data-dir.`);
  if (blobs === 's3' && givenFlag(argv, 'data-dir')) throw new UsageError(`--data-dir would hold nothing: with ${named} and --blobs s3 the data is in PostgreSQL and the files in the bucket. Leave out --data-dir.`);
}

export interface ServeDatabase {
  storage: PostgresStorage;
  studio: PostgresStudio;
  /** The file store of --blobs fs, under the data directory; null with --blobs s3. */
  blobs: BlobPort | null;
  blobsRoot: string | null;
  /** `host:port/database`. */
  where: string;
  close(): Promise<void>;
}

/**
 * The listing storage and Creator Studio's on the database (each its own pool; both migrate at
 * open under the same advisory lock), and with --blobs fs the files under `<data-dir>/blobs`.
 * `onLost` hears of connections the server ended while idle (a restart).
 */
export async function openServeDatabase(
  database: DatabaseUrl,
  { blobs, dataDir, onLost, tuning = {} }: { blobs: 'fs' | 's3' | 'memory' | null; dataDir: string; onLost: (error: Error) => void; tuning?: PostgresTuning },
): Promise<ServeDatabase> {
  const { postgresStorage, postgresStudio } = await import('../adapters/postgres/index.js');
  const storage = await postgresStorage({ url: database.url, schema: database.schema, onError: onLost, ...tuning });
  let studio: PostgresStudio;
  try {
    studio = await postgresStudio({ url: database.url, schema: database.schema, poolSize: 4, onError: onLost, ...(tuning.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: tuning.statementTimeoutMs }) });
  } catch (error) {
    await storage.close();
    throw error;
  }
  let files: BlobPort | null = null;
  let blobsRoot: string | null = null;
  if (blobs === 'fs') {
    blobsRoot = join(resolve(dataDir), 'blobs');
    await mkdir(blobsRoot, { recursive: true, mode: 0o700 });
    files = fsBlobs({ root: blobsRoot });
  }
  return {
    storage,
    studio,
    blobs: files,
    blobsRoot,
    where: storage.where,
    async close() {
      await Promise.allSettled([storage.close(), studio.close()]);
    },
  };
}
