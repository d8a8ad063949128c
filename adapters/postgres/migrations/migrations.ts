import { ConfigurationError } from '../../../core/errors.js';
import type { PgDriver } from '../driver.js';
import { initial } from './001-initial.js';
import { studio } from './002-studio.js';
import { changeVersion } from './003-change-version.js';
import { idempotencyKeys } from './004-idempotency-keys.js';
import { webhooks } from './005-webhooks.js';
import { uploadStates } from './008-upload-states.js';

/** One step of the schema. Never edit a released one: add the next version instead. */
export interface Migration {
  version: number;
  name: string;
  /** Run in order, in one transaction with the migration's record. */
  statements: string[];
}

/** Every migration, in version order. */
export const migrations: readonly Migration[] = [initial, studio, changeVersion, idempotencyKeys, webhooks, uploadStates];

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
 */
export async function migrate(db: PgDriver, who: string): Promise<MigrationReport> {
  return db.session(async (session) => {
    await session.query('SELECT pg_advisory_lock($1)', [migrationLockKey]);
    try {
      // Under the lock: two openers cannot both create the table (CREATE ... IF NOT EXISTS races otherwise).
      await session.query(`CREATE TABLE IF NOT EXISTS marketkit_migrations (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at TEXT NOT NULL
      )`);
      const found = Number((await session.query('SELECT MAX(version) AS version FROM marketkit_migrations')).rows[0]?.version ?? 0);
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
          for (const statement of migration.statements) await session.query(statement);
          await session.query('INSERT INTO marketkit_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, new Date().toISOString()]);
          await session.query('COMMIT');
        } catch (error) {
          await session.query('ROLLBACK').catch(() => {});
          throw error;
        }
        applied.push({ version: migration.version, name: migration.name });
      }
      return { from: found, to: schemaVersion, applied };
    } finally {
      await session.query('SELECT pg_advisory_unlock($1)', [migrationLockKey]).catch(() => {});
    }
  });
}
