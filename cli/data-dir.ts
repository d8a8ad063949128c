import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as v from 'valibot';
import { fsBlobs } from '../adapters/fs/index.js';
import { sqliteStorage, type SqliteDriverName, type SqliteStorage } from '../adapters/sqlite/index.js';
import type { BlobPort } from '../core/ports/blobs.js';
import { UsageError } from './args.js';
import { currentRuntime } from './runtime-server.js';
import type { JWK } from 'jose';
import { generateSessionKey } from '../core/auth/session-keys.js';

/** The `--data-dir` flag, shared by every command that works on a server's data. */
export const dataDirFlag = {
  option: { 'data-dir': { type: 'string' } },
  help: ['--data-dir <dir>', 'Where the data lives (env MARKETKIT_DATA_DIR; default ./.marketkit).'],
  schema: v.pipe(v.string(), v.minLength(1, 'data-dir must not be empty')),
  default: (env: NodeJS.ProcessEnv) => env.MARKETKIT_DATA_DIR || '.marketkit',
} as const;

const sqliteDrivers = ['auto', 'node-sqlite', 'better-sqlite3', 'bun-sqlite'] as const;
export type SqliteDriverChoice = (typeof sqliteDrivers)[number];

/** The `--sqlite-driver` flag: which SQLite driver opens the data directory's databases. */
export const sqliteDriverFlag = {
  option: { 'sqlite-driver': { type: 'string' } },
  help: [
    '--sqlite-driver <name>',
    'The SQLite driver of the data directory (env MARKETKIT_SQLITE_DRIVER; default auto): node-sqlite (Node 22.13+, or 22.12 run with --experimental-sqlite; no native module), better-sqlite3 (npm install better-sqlite3: what Node 20 needs), bun-sqlite (Bun). auto: node:sqlite where this Node has it (22.12 and later), else better-sqlite3; Bun and Deno use their own.',
  ],
  schema: v.optional(v.picklist(sqliteDrivers, 'sqlite-driver must be auto, node-sqlite, better-sqlite3 or bun-sqlite'), 'auto'),
  default: (env: NodeJS.ProcessEnv) => env.MARKETKIT_SQLITE_DRIVER || 'auto',
} as const;

/**
 * The driver to open: the one named, or with auto node:sqlite where this Node has it (no native
 * module to install), else better-sqlite3; undefined on Bun and Deno, whose own the adapter picks.
 */
export async function chooseSqliteDriver(choice: SqliteDriverChoice): Promise<SqliteDriverName | undefined> {
  const onNode = currentRuntime() === 'node';
  // node:sqlite of Node 22.5 answers a row of NULLs where there is no row (the migrations then
  // skip every table): it is used from 22.12 on, measured right there (docs/packaging.md).
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const nodeSqliteTooOld = onNode && (major < 22 || (major === 22 && minor < 12));
  if (choice === 'node-sqlite' && nodeSqliteTooOld) throw driverUnavailable('node-sqlite', new Error('node:sqlite too old'));
  if (choice !== 'auto') return choice;
  if (!onNode) return undefined;
  if (nodeSqliteTooOld) return 'better-sqlite3';
  // A computed specifier: Node 20's type checker and bundlers must not resolve it.
  const specifier = 'node:sqlite';
  return import(specifier).then(
    () => 'node-sqlite' as const,
    // No node:sqlite in this Node: better-sqlite3 is the driver, as for a Node too old.
    () => 'better-sqlite3' as const,
  );
}

/** What a data directory needs when its driver cannot be had, in the CLI's words. */
function driverUnavailable(driver: SqliteDriverName | undefined, error: Error): UsageError {
  const node = process.versions.node;
  if (driver === 'better-sqlite3') {
    return new UsageError(
      `a data directory is a SQLite database, and on Node ${node} that needs better-sqlite3 (node:sqlite needs Node 22.13+, or 22.12 with --experimental-sqlite): run "npm install better-sqlite3", or upgrade Node, or serve with --memory or --database-url.`,
    );
  }
  if (driver === 'node-sqlite') {
    return new UsageError(`--sqlite-driver node-sqlite needs node:sqlite, which Node ${node} does not have (Node 22.13+, or 22.12 run with --experimental-sqlite): use --sqlite-driver better-sqlite3 (npm install better-sqlite3) or auto.`);
  }
  return new UsageError(error.message);
}

export interface DataDir {
  /** The directory, absolute. */
  dir: string;
  database: string;
  blobsRoot: string;
  storage: SqliteStorage;
  /** The SQLite driver the data directory's databases are opened with (undefined: the runtime's own). */
  driver: SqliteDriverName | undefined;
  blobs: BlobPort;
  /** Signs upload URLs; kept in the directory so that URLs outlive a restart. */
  signingSecret: string;
  /** Signs exchanged sessions (ES256 private JWK); kept so that sessions outlive a restart. */
  sessionKey: JWK;
  close(): Promise<void>;
}

const secretPattern = /^[0-9a-f]{64}$/;

/** The secret in `file`, made (readable by this user only) when there is none yet. */
async function signingSecretIn(file: string): Promise<string> {
  const fresh = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex');
  try {
    // wx: of two servers starting at once, one writes and both read the same secret.
    await writeFile(file, `${fresh}\n`, { mode: 0o600, flag: 'wx' });
    return fresh;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = (await readFile(file, 'utf8')).trim();
  if (!secretPattern.test(secret)) {
    throw new UsageError(`${file} is not a MarketKit signing secret (64 hex characters). Remove it to make a new one; upload URLs issued before then stop working.`);
  }
  return secret;
}

/** The session signing key in `file`, made (readable by this user only) when there is none yet. */
async function sessionKeyIn(file: string): Promise<JWK> {
  try {
    await writeFile(file, `${JSON.stringify(await generateSessionKey())}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  try {
    const key = JSON.parse(await readFile(file, 'utf8')) as JWK;
    if (key.kty === 'EC' && key.crv === 'P-256' && typeof key.d === 'string') return key;
  } catch {
    // Unreadable or not JSON: refused below as any file that is not a session key.
  }
  throw new UsageError(`${file} is not a MarketKit session key (a P-256 private JWK). Remove it to make a new one; sessions issued before then stop working.`);
}

/**
 * Opens the data directory: SQLite at `marketkit.db`, blobs under `blobs/`, the upload-signing
 * secret in `secret`. With `create: false` a directory that holds no database is a UsageError.
 */
export async function openDataDir(path: string, { create, driver: choice = 'auto' }: { create: boolean; driver?: SqliteDriverChoice | undefined }): Promise<DataDir> {
  const dir = resolve(path);
  const database = join(dir, 'marketkit.db');
  const blobsRoot = join(dir, 'blobs');
  if (!create && !existsSync(database)) {
    throw new UsageError(`there is no MarketKit database in ${dir}. Start the server once ("npx marketkit serve"), or name its directory with --data-dir.`);
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const signingSecret = await signingSecretIn(join(dir, 'secret'));
  const sessionKey = await sessionKeyIn(join(dir, 'session-key.json'));
  const driver = await chooseSqliteDriver(choice);
  let storage: SqliteStorage;
  try {
    storage = await sqliteStorage({ path: database, ...(driver ? { driver } : {}) });
  } catch (error) {
    if (error instanceof Error && error.name === 'SqliteDriverUnavailable') throw driverUnavailable(driver, error);
    throw error;
  }
  return { dir, database, blobsRoot, storage, driver, blobs: fsBlobs({ root: blobsRoot }), signingSecret, sessionKey, close: () => storage.close() };
}
