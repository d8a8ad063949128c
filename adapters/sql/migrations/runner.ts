/**
 * The one migration runner, for SQLite and PostgreSQL alike (graphile-worker's migrator is the
 * model): a table of applied versions, each missing migration in its own transaction with its
 * record, all while no other MarketKit migrates the same database. Each adapter supplies the host:
 * its connection, and how it keeps the others out (adapters/sqlite/migrate.ts, adapters/postgres/migrate.ts).
 */
import { ConfigurationError } from '../../../core/errors.js';
import type { DialectName, SqlRow } from '../session.js';
import { isOldHistory, renumbered, type Recorded } from './history.js';
import type { Migration } from './migration.js';
import { migrations, schemaVersion } from './migrations.js';

/** One connection to the database being migrated. Statements take `?` placeholders. */
export interface MigrationConnection {
  all(sql: string, params?: readonly unknown[]): Promise<SqlRow[]>;
  run(sql: string, params?: readonly unknown[]): Promise<void>;
  /** Runs `fn` in one transaction (SQLite: BEGIN IMMEDIATE, the write lock first), rolled back when it throws. */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** The statements `migration` runs on this database. */
  statements(migration: Migration): readonly string[];
}

export interface MigrationHost {
  readonly dialect: DialectName;
  /** Names the adapter in messages (`marketkit postgresStorage`). */
  readonly who: string;
  /** The database, for messages: `the database at host:5432/name`, or a file's path. */
  readonly where: string;
  /**
   * Runs `fn` on one connection while no other MarketKit migrates this database: PostgreSQL takes an
   * advisory lock; a SQLite file is held in this process, and other processes wait for each
   * transaction's write lock (so the runner asks again, in each transaction, what is applied).
   */
  alone<T>(fn: (db: MigrationConnection) => Promise<T>): Promise<T>;
}

/** What migrate() found and did: the schema version before and after, and the migrations it applied (none when current). */
export interface MigrationReport {
  from: number;
  to: number;
  applied: { version: number; name: string }[];
  /** An old list's history renumbered onto the one list: its newest version in the old numbering and in the one list's. */
  renumbered?: { from: number; to: number };
}

const history = async (db: MigrationConnection): Promise<Recorded[]> =>
  (await db.all('SELECT version, name, applied_at FROM marketkit_migrations ORDER BY version')).map((row) => ({ version: Number(row.version), name: String(row.name), applied_at: String(row.applied_at) }));

const newest = (rows: readonly Recorded[]) => rows.at(-1)?.version ?? 0;

/**
 * Brings the database to `schemaVersion`. A history of the old lists is first renumbered in one
 * transaction (nothing runs again); a database from a newer MarketKit is refused rather than misread.
 */
export async function migrate(host: MigrationHost): Promise<MigrationReport> {
  return host.alone(async (db) => {
    // Made alone: two openers cannot both create it (CREATE ... IF NOT EXISTS races otherwise on PostgreSQL).
    await db.run('CREATE TABLE IF NOT EXISTS marketkit_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    let found = await history(db);
    if (newest(found) > schemaVersion) {
      throw new ConfigurationError(
        host.who,
        `${host.where} has schema version ${newest(found)}, written by a newer MarketKit; this one knows versions up to ${schemaVersion}. ` +
          'Upgrade marketkit, or point it at another database.',
      );
    }
    let renumbering: MigrationReport['renumbered'];
    if (isOldHistory(host.dialect, found)) {
      found = await db.transaction(async () => {
        const now = await history(db);
        // Another process may have renumbered it while this one waited for the write lock (SQLite).
        if (!isOldHistory(host.dialect, now)) return now;
        const rows = renumbered(host.dialect, now, new Date().toISOString(), host.who);
        await db.run('DELETE FROM marketkit_migrations');
        for (const row of rows) await db.run('INSERT INTO marketkit_migrations (version, name, applied_at) VALUES (?, ?, ?)', [row.version, row.name, row.applied_at]);
        renumbering = { from: newest(now), to: newest(rows) };
        return rows;
      });
    }
    const from = newest(found);
    const applied: MigrationReport['applied'] = [];
    for (const migration of migrations) {
      if (migration.version <= from) continue;
      const ran = await db.transaction(async () => {
        // Another process may have applied it while this one waited for the write lock (SQLite).
        if ((await db.all('SELECT 1 AS applied FROM marketkit_migrations WHERE version = ?', [migration.version])).length > 0) return false;
        for (const statement of db.statements(migration)) await db.run(statement);
        await db.run('INSERT INTO marketkit_migrations (version, name, applied_at) VALUES (?, ?, ?)', [migration.version, migration.name, new Date().toISOString()]);
        return true;
      });
      if (ran) applied.push({ version: migration.version, name: migration.name });
    }
    return { from, to: schemaVersion, applied, ...(renumbering && { renumbered: renumbering }) };
  });
}
