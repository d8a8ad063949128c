import type { StoragePort } from '../../core/ports/storage.js';
import { accountMethods, accountStatements } from './accounts.js';
import { idempotencyMethods, idempotencyStatements } from './idempotency.js';
import { listingMethods, listingStatements } from './listings.js';
import type { SqlDatabase, SqlDialect } from './session.js';
import { uploadMethods, uploadStatements } from './uploads.js';
import { webhookMethods, webhookStatements } from './webhooks.js';

/** What a dialect's adapter adds to the SQL core: its health check, its change version, its close. */
export type SqlStorageMethods = Omit<StoragePort, 'ping' | 'changeVersion'>;

/**
 * The storage port written once (core/ports/storage.ts), every capability but the health check
 * and the change version, over a dialect's session. `who` names the adapter in messages.
 */
export function sqlStorageMethods(db: SqlDatabase, who: string): SqlStorageMethods {
  // The outbox: a change's events are written on the session of its transaction.
  const webhooks = webhookMethods(db);
  return {
    ...accountMethods(db, webhooks.writeEvents),
    ...listingMethods(db, webhooks.writeEvents),
    ...uploadMethods(db),
    ...idempotencyMethods(db, who),
    ...webhooks.methods,
  };
}

/** Every statement of the SQL core in `dialect`, by name: the schema tests ask the database how it runs each. */
export const sqlStatements = (dialect: SqlDialect) => ({
  ...accountStatements(dialect),
  ...listingStatements(dialect),
  ...uploadStatements(dialect),
  ...idempotencyStatements,
  ...webhookStatements(dialect),
});
