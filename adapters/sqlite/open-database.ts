import * as v from 'valibot';
import type { SqliteDriver, SqliteDriverName } from './drivers/driver.js';
import { lockedAsUnavailable } from './drivers/busy.js';
import { openDriver } from './drivers/open-driver.js';
import { migrateSqlite } from './migrate.js';

/** The options every SQLite adapter of MarketKit takes for its connection. */
export const ConnectionOptionsSchema = v.object({
  path: v.pipe(v.string('path must be a file path or ":memory:"'), v.minLength(1, 'path must not be empty')),
  driver: v.optional(v.picklist(['better-sqlite3', 'bun-sqlite', 'node-sqlite'], 'driver must be "better-sqlite3", "bun-sqlite" or "node-sqlite"')),
  busyTimeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0, 'busyTimeoutMs must be 0 or more')), 5000),
  synchronous: v.optional(v.picklist(['full', 'normal'], 'synchronous must be "full" or "normal"'), 'full'),
});

export interface OpenSettings {
  path: string;
  driver?: SqliteDriverName | undefined;
  busyTimeoutMs: number;
  synchronous: 'full' | 'normal';
  /** Foreign keys enforced on this connection (the listing storage's schema relies on them). */
  foreignKeys: boolean;
}

/**
 * Opens the database file with the settings every MarketKit connection needs, and brings its
 * schema up to date: one place for the listing storage and Creator Studio alike. `who` names the
 * caller in error messages (`marketkit sqliteStorage`).
 */
export async function openDatabase(settings: OpenSettings, who: string): Promise<SqliteDriver> {
  let db: SqliteDriver;
  try {
    db = await openDriver(settings.path, settings.driver);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (message.startsWith('marketkit')) throw error;
    throw new Error(`${who}: cannot open ${settings.path}: ${message} (does its directory exist, and may this process write there?)`);
  }
  try {
    // bun:sqlite and node:sqlite start with no busy timeout: a second writer would fail at once.
    db.exec(`PRAGMA busy_timeout = ${settings.busyTimeoutMs}`);
    db.prepare('PRAGMA journal_mode = WAL').get();
    // FULL syncs the WAL at every commit: an acknowledged write survives power loss, not only a crash.
    db.exec(`PRAGMA synchronous = ${settings.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    // Statement and savepoint journals (a group commit's member, a statement that fires the kept
    // totals' triggers) in memory, not in a temporary file opened, written page by page and
    // unlinked per transaction: they only undo a statement or savepoint inside an open transaction,
    // so durability is the WAL's alone and unchanged (docs/adapters.md, "Group commit").
    db.exec('PRAGMA temp_store = MEMORY');
    if (settings.foreignKeys) db.exec('PRAGMA foreign_keys = ON');
    await migrateSqlite(db, settings.path, who);
  } catch (error) {
    db.close();
    throw error;
  }
  return lockedAsUnavailable(db);
}
