import { ownSchema } from '../sql/migrations/009-own-schema.js';
import { statementsOf } from '../sql/migrations/migration.js';
import { migrate, type MigrationConnection, type MigrationReport } from '../sql/migrations/runner.js';
import { postgresText } from './dialect.js';
import type { PgDriver, PgSession } from './driver.js';
import { ensureSchema, findBookkeeping } from './schema-home.js';

/**
 * The advisory lock every MarketKit instance takes to migrate: one key for the database
 * (advisory locks are per database), so that ten instances starting at once migrate once, one
 * after another, the later ones finding nothing left to do.
 */
export const migrationLockKey = 0x4d4b_4d49; // "MKMI"

/**
 * Brings the database to the newest version of the one migration list (adapters/sql/migrations/)
 * under a session-level advisory lock. `who` names the adapter in messages.
 *
 * Everything is in the driver's schema (every connection's `search_path`), created here when
 * missing. A wave-2 database has its tables and bookkeeping where that release's connections put
 * them (`public`, schema-home.ts): the session works there until migration 9 has moved every
 * table into the schema, the bookkeeping table with them, in one transaction.
 */
export function migratePg(db: PgDriver, who: string): Promise<MigrationReport> {
  const { schema } = db;
  return migrate({
    dialect: 'postgres',
    who,
    where: `the database at ${db.where}`,
    alone: (fn) =>
      db.session(async (session) => {
        await session.query('SELECT pg_advisory_lock($1)', [migrationLockKey]);
        try {
          await ensureSchema(session, schema, db.where, who);
          const from = (await findBookkeeping(session, schema)) ?? schema;
          if (from === schema) return await fn(connection(session, schema, from));
          await session.query(`SET search_path TO ${from}`);
          try {
            return await fn(connection(session, schema, from));
          } finally {
            // The startup option's schema again, for whoever the pool hands this connection next.
            await session.query('RESET search_path');
          }
        } finally {
          // Unlocking fails only with the connection gone, which released the lock with it.
          await session.query('SELECT pg_advisory_unlock($1)', [migrationLockKey]).catch(() => {});
        }
      }),
  });
}

/** The migration's connection: one session, its transactions BEGIN ... COMMIT on it. */
function connection(session: PgSession, schema: string, from: string): MigrationConnection {
  const query = (sql: string, params: readonly unknown[] = []) => session.query(params.length ? postgresText(sql) : sql, params);
  return {
    all: async (sql, params) => (await query(sql, params)).rows,
    run: async (sql, params) => void (await query(sql, params)),
    async transaction(fn) {
      await session.query('BEGIN');
      try {
        const result = await fn();
        await session.query('COMMIT');
        return result;
      } catch (error) {
        // Fails only with the connection gone, which rolled the transaction back; the error that counts is rethrown.
        await session.query('ROLLBACK').catch(() => {});
        throw error;
      }
    },
    statements(migration) {
      if (migration.version > ownSchema.version) return statementsOf(migration, 'postgres', { schema, from: schema });
      const statements = statementsOf(migration, 'postgres', { schema, from });
      // Once the layout has moved, so does this session (SET, not SET LOCAL: it outlives the transaction).
      return from !== schema && migration.version === ownSchema.version ? [...statements, `SET search_path TO ${schema}`] : statements;
    },
  };
}
