import { immediateTransactions, SqliteDriverUnavailable, type SqlRow, type SqlValue, type SqliteDriver, type SqliteStatement } from './driver.js';

/** The part of `bun:sqlite` used here. */
interface BunDatabase {
  prepare(sql: string): {
    run(...params: SqlValue[]): { changes: number };
    /** null, not undefined, when there is no row. */
    get(...params: SqlValue[]): SqlRow | null;
    all(...params: SqlValue[]): SqlRow[];
  };
  run(sql: string): unknown;
  close(): void;
}

/** `bun:sqlite`, built into Bun: the driver there. */
export async function openBunSqlite(path: string): Promise<SqliteDriver> {
  // A computed specifier keeps bundlers and the type checker from resolving a Bun-only module.
  const specifier = 'bun:sqlite';
  let module: { Database: new (path: string, options: { create: boolean }) => BunDatabase };
  try {
    module = await import(specifier);
  } catch {
    throw new SqliteDriverUnavailable('the bun-sqlite driver needs Bun; use driver "better-sqlite3" on Node');
  }
  const db = new module.Database(path, { create: true });
  const prepare = (sql: string): SqliteStatement => {
    const statement = db.prepare(sql);
    return {
      run: (...params) => ({ changes: statement.run(...params).changes }),
      get: (...params) => statement.get(...params) ?? undefined,
      all: (...params) => statement.all(...params),
    };
  };
  return {
    name: 'bun-sqlite',
    prepare,
    exec: (sql) => void db.run(sql),
    transaction: immediateTransactions(prepare),
    close: () => db.close(),
  };
}
