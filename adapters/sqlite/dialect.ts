import type { SqlDatabase, SqlDialect, SqlSession } from '../sql/session.js';
import type { SqlValue, SqliteDriver, SqliteStatement } from './drivers/driver.js';

const message = (error: unknown) => (error instanceof Error ? error.message : '');

/** SQLite's words for the SQL core: one writer at a time, so no row locks; booleans as 0 and 1. */
export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  lock: { update: '', delete: '', share: '', skipLocked: '' },
  boolean: (value) => (value ? 1 : 0),
  jsonText: (column, field) => `json_extract(${column}, '$.${field}')`,
  distinct: (a, b) => `${a} IS NOT ${b}`,
  // The BINARY collation, SQLite's default, is byte order.
  byteOrder: (column) => column,
  // The drivers differ in their error codes, not in SQLite's messages.
  isUniqueViolation: (error) => /UNIQUE constraint failed/.test(message(error)),
  isForeignKeyViolation: (error) => /FOREIGN KEY constraint failed/.test(message(error)),
};

/**
 * The SQL core's session on a SQLite driver. The driver is synchronous, the session async: a
 * transaction (BEGIN IMMEDIATE: the write lock before the first read, so a read-then-write never
 * meets SQLITE_BUSY halfway) may await between its statements, so every other call of this
 * connection waits until it ends, lest its statements run inside it. Each statement is prepared
 * once, on first use.
 */
export function sqliteSession(db: SqliteDriver): SqlDatabase {
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
  let open: Promise<unknown> | null = null;
  const settle = (pending: Promise<unknown>) => pending.then(
    () => {},
    () => {},
  );
  return {
    dialect: sqliteDialect,
    async all(sql, params) {
      while (open) await settle(open);
      return direct.all(sql, params);
    },
    async run(sql, params) {
      while (open) await settle(open);
      return direct.run(sql, params);
    },
    async transaction(fn) {
      // Checked again after each wait, and taken in the same turn: two waiters never both begin.
      while (open) await settle(open);
      const running = (async () => {
        statement('BEGIN IMMEDIATE').run();
        try {
          const result = await fn(direct);
          statement('COMMIT').run();
          return result;
        } catch (error) {
          // A failed COMMIT may have ended the transaction already; ROLLBACK then has nothing to undo.
          try {
            statement('ROLLBACK').run();
          } catch {}
          throw error;
        }
      })();
      open = running;
      try {
        return await running;
      } finally {
        if (open === running) open = null;
      }
    },
  };
}
