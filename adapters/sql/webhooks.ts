import { applyChanges, type OutboxEvent, type WebhookEndpointsPort, type WebhookStorage } from '../../core/ports/storage.js';
import { eventCtesOf } from './event-ctes.js';
import type { SqlDatabase, SqlSession } from './session.js';
import { encode, webhookEndpoints, updatedColumns } from './tables.js';
import { recordReader } from './rows.js';
import { outboxMethods, writeEvent } from './webhook-outbox.js';
import { endpointRow, failQueued, webhookStatements, type SqlWebhooks } from './webhook-statements.js';

export { webhookStatements } from './webhook-statements.js';

/**
 * Webhooks (core/ports/storage-webhooks.ts, "The outbox") in the tables of migration 8: the
 * endpoints here, the outbox in webhook-outbox.ts. `writeEvents` runs on the session of the
 * change's transaction, so the change and its events commit together or not at all. Everything
 * that changes an endpoint and its deliveries together locks the endpoint's row first
 * (PostgreSQL; SQLite's transaction holds the write lock throughout).
 */
export function webhookMethods(db: SqlDatabase) {
  const w: SqlWebhooks = { db, s: webhookStatements(db.dialect) };
  /** Writes a change's events in the order given, on the session of its transaction. */
  async function writeEvents(tx: SqlSession, events: readonly OutboxEvent[] = []): Promise<void> {
    for (const event of events) await writeEvent(w, tx, event);
  }
  const methods: WebhookStorage = { ...outboxMethods(w), ...endpointMethods(w) };
  // The events as CTEs of the change's own statement, where the dialect can (event-ctes.ts).
  return { writeEvents, eventCtes: eventCtesOf(db.dialect), methods };
}

function endpointMethods(w: SqlWebhooks): WebhookEndpointsPort {
  const { db, s } = w;
  return {
    async insertWebhookEndpoint(record, max) {
      return db.transaction(async (tx) => {
        await tx.all(s.lockAccountForEndpoint, [record.account_id]);
        const [count] = await tx.all(s.countWebhookEndpoints, [record.account_id]);
        if (Number(count?.count ?? 0) >= max) return 'limit' as const;
        await tx.run(s.insertWebhookEndpoint, encode(db.dialect, webhookEndpoints, record));
        return 'created' as const;
      });
    },
    async getWebhookEndpoint(accountId, id) {
      return endpointRow(db, s.getWebhookEndpoint, id, accountId);
    },
    async listWebhookEndpoints(accountId) {
      return recordReader(db).all(webhookEndpoints, s.listWebhookEndpoints, accountId);
    },
    async updateWebhookEndpoint(accountId, id, changes) {
      return db.transaction(async (tx) => {
        const current = await endpointRow(tx, s.getWebhookEndpointForUpdate, id, accountId);
        if (!current) return null;
        const updated = applyChanges(current, changes);
        if (changes.enabled === true && !current.enabled) updated.failing_since = null;
        if (changes.enabled === false && current.enabled) await failQueued(w, tx, id, changes.updated_at);
        await tx.run(s.updateWebhookEndpoint, encode(db.dialect, webhookEndpoints, updated, updatedColumns(webhookEndpoints)));
        return updated;
      });
    },
    async rotateWebhookSecret(accountId, id, secret, previousExpiresAt, updatedAt) {
      return db.transaction(async (tx) => {
        if ((await tx.run(s.rotateWebhookSecret, [secret, previousExpiresAt, updatedAt, id, accountId])) === 0) return null;
        return endpointRow(tx, s.getWebhookEndpoint, id, accountId);
      });
    },
    async deleteWebhookEndpoint(accountId, id) {
      // Its deliveries go with it (ON DELETE CASCADE).
      return (await db.run(s.deleteWebhookEndpoint, [id, accountId])) === 1;
    },
  };
}
