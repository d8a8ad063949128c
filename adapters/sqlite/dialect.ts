import { searchTrigrams } from '../../core/ports/listings.js';
import type { SqlDatabase, SqlDialect, SqlSession } from '../sql/session.js';
import type { SqlValue, SqliteDriver, SqliteStatement } from './drivers/driver.js';
import { openCommitGroup, type CommitGroup } from './group-commit.js';
import type { WalSync } from './wal-sync.js';

const message = (error: unknown) => (error instanceof Error ? error.message : '');

/** SQLite's words for the SQL core: one writer at a time, so no row locks; booleans as 0 and 1. */
export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  lock: { update: '', delete: '', share: '', skipLocked: '' },
  nameLock: null,
  textKey: '?',
  boolean: (value) => (value ? 1 : 0),
  jsonText: (column, field) => `json_extract(${column}, '$.${field}')`,
  distinct: (a, b) => `${a} IS NOT ${b}`,
  // The BINARY collation, SQLite's default, is byte order.
  byteOrder: (column) => column,
  // The index of migration 10 is COLLATE NOCASE.
  sameIgnoringCase: (column) => `${column} = ? COLLATE NOCASE`,
  // SQLite's own lower() folds A-Z only (without the ICU extension, which no driver here loads).
  containsFolded: (column) => `instr(lower(${column}), ?) > 0`,
  // FTS5's trigram table (detail=none: rowids only; trigrams as its tokenizer counts them, code points), every distinct trigram of the text asked for,
  // each a quoted string (a quote doubled), AND: its rows may hold the text, containsFolded decides.
  wordIndex: {
    candidates: 'SELECT k.asset_id AS id FROM asset_search CROSS JOIN asset_search_keys k WHERE asset_search MATCH ? AND k.id = asset_search.rowid',
    term: (folded) => searchTrigrams(folded).map((gram) => `"${gram.replaceAll('"', '""')}"`).join(' AND '),
  },
  // The drivers differ in their error codes, not in SQLite's messages.
  isUniqueViolation: (error) => /UNIQUE constraint failed/.test(message(error)),
  isForeignKeyViolation: (error) => /FOREIGN KEY constraint failed/.test(message(error)),
  // json_group_array takes its rows in the order the inner query gives them (an ORDER BY inside the
  // aggregate needs SQLite 3.44, newer than some runtimes' builds).
  rowsAsJson: (from, alias, columns, order) =>
    `(SELECT json_group_array(json_object(${columns.map((column) => `'${column}', ${alias}."${column}"`).join(', ')})) FROM (SELECT * FROM ${from} ORDER BY ${order}) ${alias})`,
};

/** A transaction open on a database file in this process, which every session on that file waits for. */
interface FileTurn {
  open: Promise<unknown> | null;
}

const turns = new Map<string, FileTurn>();

/** The turn of the file at `path`, shared by every session on it in this process (`:memory:` is a database of its own). */
function turnOf(path: string): FileTurn {
  if (path === ':memory:' || path === '') return { open: null };
  let turn = turns.get(path);
  if (!turn) turns.set(path, (turn = { open: null }));
  return turn;
}

const settle = (pending: Promise<unknown>) =>
  pending.then(
    () => {},
    // Only waits for another session's transaction to end: how it ended is that session's to hear.
    () => {},
  );

/**
 * Resolves once no commit group of this process is open on the file: what a connection's close
 * waits for, lest a group's COMMIT at the end of its turn find its connection closed.
 */
export async function sqliteIdle(path: string): Promise<void> {
  const turn = turnOf(path);
  while (turn.open) await settle(turn.open);
}

/**
 * Runs `fn`, a synchronous use of the file at `path` (the rate limiter's BEGIN IMMEDIATE ... COMMIT),
 * once no transaction of a session on that file is open in this process, in the same turn as that
 * check: it then cannot block the event loop waiting for a write lock this process holds.
 */
export async function whenFileFree<T>(path: string, fn: () => T): Promise<T> {
  const turn = turnOf(path);
  while (turn.open) await settle(turn.open);
  return fn();
}

/**
 * Runs `fn`, an asynchronous use of the file at `path` (the migrations, whose transactions await
 * between statements), once no transaction of a session on that file is open in this process, and
 * keeps every session on the file waiting until it ends: none then blocks the event loop waiting
 * for a write lock `fn` holds.
 */
export async function holdingFile<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const turn = turnOf(path);
  while (turn.open) await settle(turn.open);
  const held = fn();
  turn.open = held;
  try {
    return await held;
  } finally {
    if (turn.open === held) turn.open = null;
  }
}

/**
 * The SQL core's session on a SQLite driver, for the database file at `path`. The driver is
 * synchronous, the session async: a transaction (BEGIN IMMEDIATE: the write lock before the first
 * read, so a read-then-write never meets SQLITE_BUSY halfway) may await between its statements;
 * the transactions of one turn of the event loop commit together (group-commit.ts).
 * Meanwhile every other call on this file from this process waits for it to end, on this
 * connection (lest its statements run inside the transaction) and on any other (which would block
 * the event loop waiting for the write lock this transaction holds, a deadlock). Other processes
 * wait for the lock as before (busy_timeout). Each statement is prepared once, on first use.
 * With `walSync`, a group's members are acknowledged after the WAL's sync off the event loop
 * (wal-sync.ts); without it, COMMIT syncs as the connection's `synchronous` says.
 */
export function sqliteSession(db: SqliteDriver, path: string, walSync: WalSync | null = null): SqlDatabase {
  const prepared = new Map<string, SqliteStatement>();
  const statement = (sql: string): SqliteStatement => {
    let found = prepared.get(sql);
    if (!found) prepared.set(sql, (found = db.prepare(sql)));
    return found;
  };
  const direct: SqlSession = {
    all: async (sql, params = []) => statement(sql).all(...(params as SqlValue[])),
    run: async (sql, params = []) => statement(sql).run(...(params as SqlValue[])).changes,
  };
  const turn = turnOf(path);
  let group: CommitGroup | null = null;
  return {
    dialect: sqliteDialect,
    async all(sql, params) {
      while (turn.open) await settle(turn.open);
      return direct.all(sql, params);
    },
    async run(sql, params) {
      while (turn.open) await settle(turn.open);
      return direct.run(sql, params);
    },
    async transaction(fn) {
      // Joins the group this connection has open in this turn (group-commit.ts), or opens one once
      // the file is free: checked again after each wait, and taken in the same turn, so two
      // waiters never both begin.
      for (;;) {
        if (group && !group.closed) return group.run(fn);
        if (!turn.open) break;
        await settle(turn.open);
      }
      const opened = openCommitGroup(statement, direct, walSync);
      group = opened;
      turn.open = opened.settled;
      void opened.settled.then(() => {
        if (turn.open === opened.settled) turn.open = null;
        if (group === opened) group = null;
      });
      return opened.run(fn);
    },
  };
}
