import * as v from 'valibot';
import type { VersionsPort } from '../../core/ports/versions.js';
import type { DashboardPort } from '../../core/ports/dashboard.js';
import { parseOptions } from '../../core/options.js';
import type { StoragePort } from '../../core/ports/storage.js';
import type { UploadStatePort } from '../../core/ports/upload-state.js';
import { sqlStorageMethods } from '../sql/storage.js';
import type { SqlRow, SqliteDriver, SqliteDriverName } from './drivers/driver.js';
import { sqliteIdle, sqliteSession } from './dialect.js';
import { ConnectionOptionsSchema, openDatabase } from './open-database.js';
import { queries } from './queries.js';
import { watchWalIndex } from './wal-index.js';
import { openWalSync } from './wal-sync.js';

export type SqliteStorageOptions = v.InferInput<typeof ConnectionOptionsSchema>;

export interface SqliteStorage extends StoragePort {
  /** The driver in use. */
  readonly driver: SqliteDriverName;
  /** The database file, as given. */
  readonly path: string;
  /** The upload-state port on this connection (docs/uploads.md): closed with the storage. */
  readonly uploadStates: UploadStatePort;
  /** Versions of published listings (core/ports/versions.ts; docs/moderation.md, "Versions"). */
  readonly versions: VersionsPort;
  /** The dashboard's sessions and sign-in links (core/ports/dashboard.ts; docs/dashboard.md). */
  readonly dashboard: DashboardPort;
  /** Closes the database; the storage answers nothing afterwards (nor do its upload states). */
  close(): Promise<void>;
}

const who = 'marketkit sqliteStorage';

/** The database is in WAL mode with its index in the `-shm` file (not in heap memory, as under an exclusive lock). */
function isWalOnSharedMemory(db: SqliteDriver): boolean {
  const mode = (statement: string) => String(Object.values(db.prepare(statement).get() ?? {})[0]).toLowerCase();
  return mode('PRAGMA journal_mode') === 'wal' && mode('PRAGMA locking_mode') === 'normal';
}

/**
 * The storage port on SQLite: one database file in WAL mode, opened and migrated here, and the
 * SQL core (adapters/sql/) over it. Concurrent writers (other processes on the same file) wait up
 * to `busyTimeoutMs` for the lock. Each method is one statement or one BEGIN IMMEDIATE
 * transaction (dialect.ts), so it is atomic against any other caller, in this process or another.
 */
export async function sqliteStorage(options: SqliteStorageOptions): Promise<SqliteStorage> {
  const config = parseOptions(ConnectionOptionsSchema, options, who);
  const db = await openDatabase({ ...config, foreignKeys: true }, who);
  // Every statement prepared once, at open: a typo in one fails here, not on some later request.
  for (const sql of Object.values(queries)) db.prepare(sql);
  const ping = db.prepare(queries.ping);
  const changes = db.prepare(queries.changeVersion);
  const callerChanges = db.prepare(queries.callerVersion);
  let seen: SqlRow = {};
  let versions = { all: 0, callers: 0 };
  let callers: unknown;
  const moveAll = () => {
    // Read after the check, so never older than it: a write to accounts or tokens it missed moves the check again.
    const callersNow = callerChanges.get()!.version;
    versions = { all: versions.all + 1, callers: callersNow === callers ? versions.callers : versions.callers + 1 };
    callers = callersNow;
  };
  // In WAL mode with shared memory, the check is one read of the WAL index's header (wal-index.ts);
  // otherwise a statement: total_changes() counts this connection's writes (rolled-back ones too: a
  // spare change is harmless), data_version moves when another connection commits, in this process or another.
  const walIndex = isWalOnSharedMemory(db) ? watchWalIndex(config.path) : null;
  const changeVersions = () => {
    if (walIndex) {
      if (walIndex.moved()) moveAll();
      return versions;
    }
    const now = changes.get()!;
    if (now.own !== seen.own || now.others !== seen.others) {
      seen = now;
      moveAll();
    }
    return versions;
  };

  // At FULL, a group commit's WAL sync runs off the event loop (wal-sync.ts); the WAL file exists
  // once the migrations have written. NORMAL asked for no sync at commit, and gets none.
  const walSync = config.synchronous === 'full' && config.path !== ':memory:' ? openWalSync(config.path) : null;

  return {
    driver: db.name,
    path: config.path,
    ...sqlStorageMethods(sqliteSession(db, config.path, walSync), who),
    async ping() {
      ping.get();
    },
    changeVersion: () => changeVersions().all,
    changeVersions,
    async close() {
      // A commit group still open on this file ends (its COMMIT) before the connection closes.
      await sqliteIdle(config.path);
      db.close();
      walIndex?.close();
      await walSync?.close();
    },
  };
}
