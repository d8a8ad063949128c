import { ConfigurationError } from '../../../core/errors.js';
import type { PgDriver } from '../driver.js';
import { initial } from './001-initial.js';
import { studio } from './002-studio.js';
import { changeVersion } from './003-change-version.js';
import { idempotencyKeys } from './004-idempotency-keys.js';
import { webhooks } from './005-webhooks.js';
import { ownSchema } from './006-own-schema.js';
import { usernamesIgnoreCase } from './007-usernames-ignore-case.js';
import { listingCounts } from './010-listing-counts.js';
import { uploadStates } from './008-upload-states.js';
import { uploadReservations } from './009-upload-reservations.js';
import { callerVersion } from './011-caller-version.js';
import { listMoves } from './012-list-moves.js';
import { eventTraceparent } from './013-event-traceparent.js';
import { uploadStoreKey } from './014-upload-store-key.js';
import { sellerCountShards } from './015-seller-count-shards.js';
import { ensureSchema, findBookkeeping } from './schema-home.js';

export type { MigrationPlace, Migration } from './migration.js';
import type { Migration } from './migration.js';

/** Every migration, in version order. */
export const migrations: readonly Migration[] = [initial, studio, changeVersion, idempotencyKeys, webhooks, ownSchema, usernamesIgnoreCase, uploadStates, uploadReservations, listingCounts, callerVersion, listMoves, eventTraceparent, uploadStoreKey, sellerCountShards];

export const schemaVersion = migrations[migrations.length - 1]!.version;

/**
 * The advisory lock every MarketKit instance takes to migrate: one key for the database
 * (advisory locks are per database), so that ten instances starting at once migrate once, one
 * after another, the later ones finding nothing left to do.
 */
export const migrationLockKey = 0x4d4b_4d49; // "MKMI"

/** What migrate() found and did: the schema version before and after, and the migrations it applied (none when current). */
export interface MigrationReport {
  from: number;
  to: number;
  applied: { version: number; name: string }[];
}

/**
 * Brings the database to `schemaVersion` under a session-level advisory lock: each missing
 * migration in its own transaction, recorded in `marketkit_migrations`. A database from a newer
 * MarketKit is refused rather than misread. `who` names the adapter in messages.
 *
 * Everything is in the driver's schema (every connection's `search_path`), created here when
 * missing. A wave-2 database has its tables and bookkeeping where that release's connections put
 * them (`public`, schema-home.ts): its missing migrations before 6 run there (SET LOCAL
 * search_path), and migration 6 moves every table into the schema, the bookkeeping table with
 * them, in one transaction. Under the lock, an instance that started meanwhile waits and then
 * finds the schema current.
 */
export async function migrate(db: PgDriver, who: string): Promise<MigrationReport> {
  const { schema } = db;
  return db.session(async (session) => {
    await session.query('SELECT pg_advisory_lock($1)', [migrationLockKey]);
    try {
      await ensureSchema(session, schema, db.where, who);
      let from = (await findBookkeeping(session, schema, ownSchema.version)) ?? schema;
      // Under the lock: two openers cannot both create the table (CREATE ... IF NOT EXISTS races otherwise).
      await session.query(`CREATE TABLE IF NOT EXISTS ${from}.marketkit_migrations (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at TEXT NOT NULL
      )`);
      const found = Number((await session.query(`SELECT MAX(version) AS version FROM ${from}.marketkit_migrations`)).rows[0]?.version ?? 0);
      if (found > schemaVersion) {
        throw new ConfigurationError(
          who,
          `the database at ${db.where} has schema version ${found}, written by a newer MarketKit; this one knows versions up to ${schemaVersion}. ` +
            'Upgrade marketkit, or point it at another database.',
        );
      }
      const applied: MigrationReport['applied'] = [];
      for (const migration of migrations) {
        if (migration.version <= found) continue;
        await session.query('BEGIN');
        try {
          // A wave-2 layout gets what it lacks where it is; migration 6 then moves it all.
          if (from !== schema && migration.version < ownSchema.version) await session.query(`SET LOCAL search_path TO ${from}`);
          const statements = typeof migration.statements === 'function' ? migration.statements({ schema, from }) : migration.statements;
          for (const statement of statements) await session.query(statement);
          await session.query('INSERT INTO marketkit_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, new Date().toISOString()]);
          await session.query('COMMIT');
        } catch (error) {
          await session.query('ROLLBACK').catch(() => {});
          throw error;
        }
        if (migration.version === ownSchema.version) from = schema;
        applied.push({ version: migration.version, name: migration.name });
      }
      return { from: found, to: schemaVersion, applied };
    } finally {
      await session.query('SELECT pg_advisory_unlock($1)', [migrationLockKey]).catch(() => {});
    }
  });
}
