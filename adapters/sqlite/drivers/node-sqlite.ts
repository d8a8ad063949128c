import { immediateTransactions, SqliteDriverUnavailable, type SqlRow, type SqlValue, type SqliteDriver, type SqliteStatement } from './driver.js';

/** The part of `node:sqlite` used here (Node 22.5+, Deno 2.2+); its types are not in @types/node 20. */
interface DatabaseSync {
  prepare(sql: string): {
    run(...params: SqlValue[]): { changes: number | bigint };
    get(...params: SqlValue[]): SqlRow | undefined;
    all(...params: SqlValue[]): SqlRow[];
  };
  exec(sql: string): void;
  close(): void;
}

/** `node:sqlite`: the driver on Deno, and on Node 22.5 and later when asked for. */
export async function openNodeSqlite(path: string): Promise<SqliteDriver> {
  // A computed specifier keeps bundlers and Node 20's type checker from resolving the module.
  const specifier = 'node:sqlite';
  let module: { DatabaseSync: new (path: string) => DatabaseSync };
  try {
    module = await import(specifier);
  } catch {
    throw new SqliteDriverUnavailable('the node-sqlite driver needs node:sqlite (Node 22.5 or later, or Deno); use driver "better-sqlite3" here');
  }
  const db = new module.DatabaseSync(path);
  const prepare = (sql: string): SqliteStatement => {
    const statement = db.prepare(sql);
    return {
      run: (...params) => ({ changes: Number(statement.run(...params).changes) }),
      get: (...params) => statement.get(...params),
      all: (...params) => statement.all(...params),
    };
  };
  return {
    name: 'node-sqlite',
    prepare,
    exec: (sql) => db.exec(sql),
    transaction: immediateTransactions(prepare),
    close: () => db.close(),
  };
}
