import { immediateTransactions, SqliteDriverUnavailable, type SqliteDriver, type SqliteStatement } from './driver.js';

/** better-sqlite3 (an optional peer dependency): the driver on Node. */
export async function openBetterSqlite3(path: string): Promise<SqliteDriver> {
  let Database: typeof import('better-sqlite3');
  try {
    Database = (await import('better-sqlite3')).default;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new SqliteDriverUnavailable(
      'the better-sqlite3 driver needs the better-sqlite3 package: run "npm install better-sqlite3" (or, on Node 22.5 and later, pass driver: "node-sqlite")',
    );
  }
  const db = new Database(path);
  // better-sqlite3's statements already have this shape: no wrapper on the hot path.
  const prepare = (sql: string): SqliteStatement => db.prepare(sql) as unknown as SqliteStatement;
  return {
    name: 'better-sqlite3',
    prepare,
    exec: (sql) => void db.exec(sql),
    transaction: immediateTransactions(prepare),
    close: () => void db.close(),
  };
}
