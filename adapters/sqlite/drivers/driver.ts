/** A value SQLite stores and returns through every driver. */
export type SqlValue = string | number | null;

export type SqlRow = Record<string, SqlValue>;

/** A prepared statement, the same on every driver. */
export interface SqliteStatement {
  run(...params: SqlValue[]): { changes: number };
  /** The first row, or undefined when there is none. */
  get(...params: SqlValue[]): SqlRow | undefined;
  all(...params: SqlValue[]): SqlRow[];
}

/**
 * The little the adapter needs from a SQLite binding. Every driver is synchronous: a statement
 * runs to completion before the event loop moves on, which is what makes a transaction atomic
 * against other calls in this process.
 */
export interface SqliteDriver {
  readonly name: SqliteDriverName;
  prepare(sql: string): SqliteStatement;
  /** Runs one statement that returns no rows (DDL, PRAGMA). */
  exec(sql: string): void;
  /**
   * Runs `fn` inside BEGIN IMMEDIATE ... COMMIT, rolled back when it throws. IMMEDIATE takes the
   * write lock up front, so a read-then-write cannot meet SQLITE_BUSY halfway through.
   */
  transaction<T>(fn: () => T): T;
  close(): void;
}

export type SqliteDriverName = 'better-sqlite3' | 'bun-sqlite' | 'node-sqlite';

/** The driver's module cannot be loaded on this runtime (not installed, or not built in). */
export class SqliteDriverUnavailable extends Error {
  constructor(message: string) {
    super(`marketkit sqliteStorage: ${message}`);
    this.name = 'SqliteDriverUnavailable';
  }
}

/**
 * The transaction every driver uses, over its own prepared statements: one implementation, so
 * that the code Bun and Deno run is the code the Node tests exercise.
 */
export function immediateTransactions(prepare: (sql: string) => SqliteStatement): <T>(fn: () => T) => T {
  let begin: SqliteStatement | undefined;
  let commit: SqliteStatement | undefined;
  let rollback: SqliteStatement | undefined;
  let open = false;
  return (fn) => {
    if (open) throw new Error('marketkit sqliteStorage: transactions do not nest');
    begin ??= prepare('BEGIN IMMEDIATE');
    commit ??= prepare('COMMIT');
    rollback ??= prepare('ROLLBACK');
    begin.run();
    open = true;
    try {
      const result = fn();
      commit.run();
      return result;
    } catch (error) {
      try {
        rollback.run();
      } catch {
        // A failed COMMIT may have ended the transaction already; ROLLBACK then has nothing to undo.
      }
      throw error;
    } finally {
      open = false;
    }
  };
}
