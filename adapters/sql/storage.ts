import type { StoragePort } from '../../core/ports/storage.js';
import type { UploadStatePort } from '../../core/ports/upload-state.js';
import { accountMethods, accountStatements } from './accounts.js';
import { idempotencyMethods, idempotencyStatements } from './idempotency.js';
import { listingMethods, listingStatements } from './listings.js';
import type { SqlDatabase, SqlDialect } from './session.js';
import { uploadStateMethods, uploadStateStatements } from './upload-states.js';
import { uploadMethods, uploadStatements } from './uploads.js';
import { webhookMethods, webhookStatements } from './webhooks.js';
import { versionMethods, versionStatements } from './versions.js';
import type { VersionsPort } from '../../core/ports/versions.js';
import type { DashboardPort } from '../../core/ports/dashboard.js';
import { dashboardMethods, dashboardStatements } from './dashboard.js';
import type { AuditPort } from '../../core/ports/audit.js';
import { auditMethods, auditStatements } from './audit.js';

/**
 * What a dialect's adapter adds to the SQL core: its health check, its change version, its close.
 * `uploadStates` is the upload-state port (core/ports/upload-state.ts) on the same session, for
 * `createMarketplace({ uploadStates: storage.uploadStates })`: one connection or pool serves both.
 */
export type SqlStorageMethods = Omit<StoragePort, 'ping' | 'changeVersion'> & { readonly uploadStates: UploadStatePort; readonly versions: VersionsPort; readonly dashboard: DashboardPort; readonly audit: AuditPort };

/**
 * The storage port written once (core/ports/storage.ts), every capability but the health check
 * and the change version, and the upload-state port beside it, over a dialect's session. `who`
 * names the adapter in messages.
 */
export function sqlStorageMethods(db: SqlDatabase, who: string): SqlStorageMethods {
  // The outbox: a change's events are written on the session of its transaction.
  const webhooks = webhookMethods(db);
  return {
    ...accountMethods(db, webhooks.writeEvents),
    ...listingMethods(db, webhooks.writeEvents, webhooks.eventCtes),
    ...uploadMethods(db),
    ...idempotencyMethods(db, who),
    ...webhooks.methods,
    uploadStates: uploadStateMethods(db),
    // Versions of published listings (core/ports/versions.ts), a capability both databases have.
    versions: versionMethods(db, webhooks.writeEvents),
    // The dashboard's sessions and sign-in links (core/ports/dashboard.ts).
    dashboard: dashboardMethods(db),
    // The audit log of the dashboard's moderators and operators (core/ports/audit.ts).
    audit: auditMethods(db),
  };
}

/** Every statement of the SQL core in `dialect`, by name: the schema tests ask the database how it runs each. */
export const sqlStatements = (dialect: SqlDialect) => ({
  ...accountStatements(dialect),
  ...listingStatements(dialect),
  ...uploadStatements(dialect),
  ...idempotencyStatements,
  ...webhookStatements(dialect),
  ...uploadStateStatements,
  ...versionStatements(dialect),
  ...dashboardStatements,
  ...auditStatements,
});
