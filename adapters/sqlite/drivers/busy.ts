import { StorageUnavailableError } from '../../../core/errors.js';
import type { SqliteDriver, SqliteStatement } from './driver.js';

/**
 * Whether a driver's error says the database is locked by another connection past the busy
 * timeout (SQLITE_BUSY, SQLITE_LOCKED and their extended codes): better-sqlite3 and bun:sqlite name
 * it in `code`, node:sqlite in `errcode` (5 or 6, the low byte of an extended code).
 */
function isLocked(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code)) return true;
  return typeof errcode === 'number' && ((errcode & 0xff) === 5 || (errcode & 0xff) === 6);
}

function unavailable<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    // Another process holds the lock (a backup, a second server on the file): a store that cannot be
    // reached for now, 503 with Retry-After on every surface (docs/errors.md), never a 500.
    if (isLocked(error)) throw new StorageUnavailableError('the SQLite database is locked by another connection', { cause: error });
    throw error;
  }
}

/** `db` with every statement and transaction reporting a locked database as StorageUnavailableError. */
export function lockedAsUnavailable(db: SqliteDriver): SqliteDriver {
  const wrap = (statement: SqliteStatement): SqliteStatement => ({
    run: (...params) => unavailable(() => statement.run(...params)),
    get: (...params) => unavailable(() => statement.get(...params)),
    all: (...params) => unavailable(() => statement.all(...params)),
  });
  return {
    name: db.name,
    prepare: (sql) => wrap(db.prepare(sql)),
    exec: (sql) => unavailable(() => db.exec(sql)),
    transaction: (fn) => unavailable(() => db.transaction(fn)),
    close: () => db.close(),
  };
}
