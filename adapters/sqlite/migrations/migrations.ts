import { ConfigurationError } from '../../../core/errors.js';
import type { SqliteDriver } from '../drivers/driver.js';
import { initial } from './001-initial.js';
import { moderation } from './002-moderation.js';
import { studio } from './003-studio.js';
import { studioKeys } from './004-studio-keys.js';
import { uploadLifecycle } from './005-upload-lifecycle.js';
import { idempotencyKeys } from './006-idempotency-keys.js';
import { webhooks } from './007-webhooks.js';
import { usernamesIgnoreCase } from './008-usernames-ignore-case.js';
import { listingCounts } from './011-listing-counts.js';
import { uploadStates } from './009-upload-states.js';
import { uploadReservations } from './010-upload-reservations.js';
import { callerVersion } from './012-caller-version.js';
import { listMoves } from './013-list-moves.js';
import { eventTraceparent } from './014-event-traceparent.js';
import { uploadStoreKey } from './015-upload-store-key.js';
import { partialDueIndex } from './016-partial-due-index.js';

export type { Migration } from './migration.js';
import type { Migration } from './migration.js';

/** Every migration, in version order. */
export const migrations: readonly Migration[] = [initial, moderation, studio, studioKeys, uploadLifecycle, idempotencyKeys, webhooks, usernamesIgnoreCase, uploadStates, uploadReservations, listingCounts, callerVersion, listMoves, eventTraceparent, uploadStoreKey, partialDueIndex];

export const schemaVersion = migrations[migrations.length - 1]!.version;

/**
 * Brings the database to `schemaVersion`: each missing migration in its own transaction, recorded
 * in `marketkit_migrations`, so that running it again (or from two processes at once) applies
 * nothing twice. A database from a newer MarketKit is refused rather than misread.
 */
export function migrate(db: SqliteDriver, where: string): void {
  db.exec(`CREATE TABLE IF NOT EXISTS marketkit_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const newest = db.prepare('SELECT MAX(version) AS version FROM marketkit_migrations');
  const found = Number(newest.get()?.version ?? 0);
  if (found > schemaVersion) {
    throw new ConfigurationError(
      'marketkit sqliteStorage',
      `${where} has schema version ${found}, written by a newer MarketKit; this one knows versions up to ${schemaVersion}. ` +
        'Upgrade marketkit, or point it at another database.',
    );
  }
  const applied = db.prepare('SELECT 1 AS applied FROM marketkit_migrations WHERE version = ?');
  const record = db.prepare('INSERT INTO marketkit_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const migration of migrations) {
    if (migration.version <= found) continue;
    db.transaction(() => {
      // Another process may have applied it while this one waited for the lock.
      if (applied.get(migration.version)) return;
      for (const statement of migration.statements) db.exec(statement);
      record.run(migration.version, migration.name, new Date().toISOString());
    });
  }
}
