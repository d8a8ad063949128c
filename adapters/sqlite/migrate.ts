import { statementsOf } from '../sql/migrations/migration.js';
import { migrate, type MigrationConnection, type MigrationReport } from '../sql/migrations/runner.js';
import { holdingFile } from './dialect.js';
import type { SqlValue, SqliteDriver } from './drivers/driver.js';

/**
 * Brings the SQLite database at `path` to the newest version of the one migration list
 * (adapters/sql/migrations/), on the connection that opens it. The file is held in this process
 * meanwhile (another connection waiting for the write lock would block the event loop the
 * migration needs); other processes wait for each transaction's write lock (busy_timeout).
 */
export function migrateSqlite(db: SqliteDriver, path: string, who: string): Promise<MigrationReport> {
  const connection: MigrationConnection = {
    all: async (sql, params = []) => db.prepare(sql).all(...(params as SqlValue[])),
    async run(sql, params = []) {
      // exec for DDL: a statement that answers nothing needs no prepared handle.
      if (params.length === 0) db.exec(sql);
      else db.prepare(sql).run(...(params as SqlValue[]));
    },
    async transaction(fn) {
      db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn();
        db.exec('COMMIT');
        return result;
      } catch (error) {
        try {
          db.exec('ROLLBACK');
        } catch {
          // A failed COMMIT may have ended the transaction already; ROLLBACK then has nothing to undo,
          // and the error that counts is the one rethrown.
        }
        throw error;
      }
    },
    statements: (migration) => statementsOf(migration, 'sqlite'),
  };
  return migrate({ dialect: 'sqlite', who, where: path, alone: (fn) => holdingFile(path, () => fn(connection)) });
}
