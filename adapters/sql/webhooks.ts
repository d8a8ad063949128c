import { subscribesTo } from '../../core/domain/webhook-events.js';
import { applyChanges, type ClaimedDelivery, type OutboxEvent, type WebhookDeliveryRecord, type WebhookDeliveryStatus, type WebhookStorage } from '../../core/ports/storage.js';
import { webhookDeliveryStatuses } from '../../core/ports/webhook-records.js';
import { afterAttempt, disablesEndpoint, failingSinceAfter, newDelivery } from '../../core/webhooks/delivery-rules.js';
import { eventCtesOf } from './event-ctes.js';
import { fourSlots, type SqlDatabase, type SqlDialect, type SqlSession } from './session.js';
import { decode, encode, webhookDeliveries, webhookEndpoints, webhookEvents, updatedColumns } from './tables.js';
import { insertInto, updateOf } from './statements.js';
import { recordReader } from './rows.js';

const queued = "status IN ('pending', 'retrying')";

export const webhookStatements = ({ lock }: SqlDialect) => ({
  insertWebhookEvent: 'INSERT INTO webhook_events (id, type, account_id, subject_id, created_at, data, traceparent) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING sequence',
  // The endpoints an event goes to, locked FOR SHARE on PostgreSQL: an endpoint disabled meanwhile
  // waits for this commit and then fails what it queued; one disabled first is read afresh and left out.
  endpointsOfEvent: `SELECT * FROM webhook_endpoints WHERE account_id = ?${lock.share}`,
  sharedWebhookEndpoint: `SELECT * FROM webhook_endpoints WHERE id = ? AND account_id = ?${lock.share}`,
  insertWebhookEndpoint: insertInto(webhookEndpoints),
  // The account's row locked: concurrent inserts of one account count one after another.
  lockAccountForEndpoint: `SELECT id FROM accounts WHERE id = ?${lock.update}`,
  countWebhookEndpoints: 'SELECT COUNT(*) AS count FROM webhook_endpoints WHERE account_id = ?',
  getWebhookEndpoint: 'SELECT * FROM webhook_endpoints WHERE id = ? AND account_id = ?',
  getWebhookEndpointForUpdate: `SELECT * FROM webhook_endpoints WHERE id = ? AND account_id = ?${lock.update}`,
  webhookEndpointById: 'SELECT * FROM webhook_endpoints WHERE id = ?',
  lockWebhookEndpoint: `SELECT * FROM webhook_endpoints WHERE id = ?${lock.update}`,
  listWebhookEndpoints: 'SELECT * FROM webhook_endpoints WHERE account_id = ? ORDER BY created_at DESC, id DESC',
  updateWebhookEndpoint: updateOf(webhookEndpoints),
  // The old secret from the row as it was: SET reads the values before the update.
  rotateWebhookSecret: 'UPDATE webhook_endpoints SET previous_secret = secret, secret = ?, previous_secret_expires_at = ?, updated_at = ? WHERE id = ? AND account_id = ?',
  setWebhookFailingSince: 'UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?',
  deleteWebhookEndpoint: 'DELETE FROM webhook_endpoints WHERE id = ? AND account_id = ?',
  insertWebhookDelivery: insertInto(webhookDeliveries),
  getWebhookDelivery: 'SELECT * FROM webhook_deliveries WHERE id = ? AND account_id = ?',
  webhookDeliveryById: 'SELECT * FROM webhook_deliveries WHERE id = ?',
  getWebhookEvent: 'SELECT * FROM webhook_events WHERE id = ?',
  // Four slots for the statuses a list asks for (a shorter list repeats its last one).
  listEndpointDeliveries: `SELECT * FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ? AND status IN (?, ?, ?, ?)
    ORDER BY created_at DESC, event_sequence DESC, id DESC LIMIT ? OFFSET ?`,
  countEndpointDeliveries: 'SELECT COUNT(*) AS total FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ? AND status IN (?, ?, ?, ?)',
  listAccountDeliveries: 'SELECT * FROM webhook_deliveries WHERE account_id = ? AND status IN (?, ?, ?, ?) ORDER BY created_at DESC, event_sequence DESC, id DESC LIMIT ? OFFSET ?',
  countAccountDeliveries: 'SELECT COUNT(*) AS total FROM webhook_deliveries WHERE account_id = ? AND status IN (?, ?, ?, ?)',
  // Read outside the transaction first: a worker's poll that finds nothing due takes no lock.
  anyDueWebhookDelivery: 'SELECT 1 AS due FROM webhook_deliveries WHERE next_attempt_ms <= ? AND (lease_until_ms IS NULL OR lease_until_ms <= ?) LIMIT 1',
  // The due rows no other claim holds: SKIP LOCKED on PostgreSQL, the write lock on SQLite.
  dueWebhookDeliveries: `SELECT id FROM webhook_deliveries WHERE next_attempt_ms <= ? AND (lease_until_ms IS NULL OR lease_until_ms <= ?)
    ORDER BY next_attempt_ms, event_sequence LIMIT ?${lock.skipLocked}`,
  leaseWebhookDelivery: 'UPDATE webhook_deliveries SET lease_holder = ?, lease_until_ms = ? WHERE id = ?',
  endpointOfWebhookDelivery: 'SELECT endpoint_id FROM webhook_deliveries WHERE id = ?',
  heldWebhookDelivery: `SELECT * FROM webhook_deliveries WHERE id = ? AND lease_holder = ? AND ${queued}${lock.delete}`,
  // An attempt recorded ends the lease.
  recordWebhookAttempt: 'UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_ms = ?, updated_at = ?, lease_holder = NULL, lease_until_ms = NULL WHERE id = ?',
  failQueuedWebhookDeliveries: `UPDATE webhook_deliveries SET status = 'failed', next_attempt_ms = NULL, lease_holder = NULL, lease_until_ms = NULL, updated_at = ?
    WHERE endpoint_id = ? AND ${queued}`,
  // Their deliveries go with them (ON DELETE CASCADE).
  purgeWebhookEvents: `DELETE FROM webhook_events WHERE id IN (
      SELECT id FROM webhook_events o WHERE o.created_at < ?
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = o.id AND d.${queued})
      ORDER BY o.created_at LIMIT ?)`,
  // Queued (pending or retrying) is exactly "has a next attempt" (webhook-records.ts): the due index serves it.
  webhookBacklog: 'SELECT COUNT(*) AS queued, MIN(CASE WHEN next_attempt_ms <= ? THEN next_attempt_ms END) AS oldest FROM webhook_deliveries WHERE next_attempt_ms IS NOT NULL',
});

/**
 * Webhooks (core/ports/storage-webhooks.ts, "The outbox") in the tables of migration 8.
 * `writeEvents` runs on the session of the change's transaction, so the change and its events
 * commit together or not at all. Everything that changes an endpoint and its deliveries together
 * locks the endpoint's row first (PostgreSQL; SQLite's transaction holds the write lock throughout).
 */
export function webhookMethods(db: SqlDatabase) {
  const s = webhookStatements(db.dialect);
  const endpoint = (on: SqlSession, sql: string, ...params: unknown[]) => recordReader(on).one(webhookEndpoints, sql, ...params);
  const delivery = (on: SqlSession, sql: string, ...params: unknown[]) => recordReader(on).one(webhookDeliveries, sql, ...params);
  const insertDelivery = (tx: SqlSession, record: WebhookDeliveryRecord) => tx.run(s.insertWebhookDelivery, encode(db.dialect, webhookDeliveries, record));
  const failQueued = (tx: SqlSession, endpointId: string, at: string) => tx.run(s.failQueuedWebhookDeliveries, [at, endpointId]);

  /** Writes the event and queues its deliveries, on the session of a transaction. The deliveries queued. */
  async function writeEvent(tx: SqlSession, event: OutboxEvent, onlyEndpoint?: string): Promise<WebhookDeliveryRecord[]> {
    const [row] = await tx.all(s.insertWebhookEvent, [event.id, event.type, event.account_id, event.subject_id, event.created_at, event.data, event.traceparent ?? null]);
    const targets =
      onlyEndpoint !== undefined
        ? [onlyEndpoint]
        : (await tx.all(s.endpointsOfEvent, [event.account_id]))
            .map((found) => decode(webhookEndpoints, found))
            .filter((e) => e.enabled && subscribesTo(e.event_types, event.type))
            .map((e) => e.id);
    const deliveries = targets.map((target) => newDelivery(crypto.randomUUID(), target, event, Number(row!.sequence)));
    for (const queued of deliveries) await insertDelivery(tx, queued);
    return deliveries;
  }

  /** Writes a change's events in the order given, on the session of its transaction. */
  async function writeEvents(tx: SqlSession, events: readonly OutboxEvent[] = []): Promise<void> {
    for (const event of events) await writeEvent(tx, event);
  }

  const methods: WebhookStorage = {
    async insertWebhookEvent(event, endpointId) {
      return db.transaction(async (tx) => {
        if (endpointId !== undefined && !(await endpoint(tx, s.sharedWebhookEndpoint, endpointId, event.account_id))?.enabled) return [];
        return writeEvent(tx, event, endpointId);
      });
    },
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
      return endpoint(db, s.getWebhookEndpoint, id, accountId);
    },
    async listWebhookEndpoints(accountId) {
      return recordReader(db).all(webhookEndpoints, s.listWebhookEndpoints, accountId);
    },
    async updateWebhookEndpoint(accountId, id, changes) {
      return db.transaction(async (tx) => {
        const current = await endpoint(tx, s.getWebhookEndpointForUpdate, id, accountId);
        if (!current) return null;
        const updated = applyChanges(current, changes);
        if (changes.enabled === true && !current.enabled) updated.failing_since = null;
        if (changes.enabled === false && current.enabled) await failQueued(tx, id, changes.updated_at);
        await tx.run(s.updateWebhookEndpoint, encode(db.dialect, webhookEndpoints, updated, updatedColumns(webhookEndpoints)));
        return updated;
      });
    },
    async rotateWebhookSecret(accountId, id, secret, previousExpiresAt, updatedAt) {
      return db.transaction(async (tx) => {
        if ((await tx.run(s.rotateWebhookSecret, [secret, previousExpiresAt, updatedAt, id, accountId])) === 0) return null;
        return endpoint(tx, s.getWebhookEndpoint, id, accountId);
      });
    },
    async deleteWebhookEndpoint(accountId, id) {
      // Its deliveries go with it (ON DELETE CASCADE).
      return (await db.run(s.deleteWebhookEndpoint, [id, accountId])) === 1;
    },
    async getWebhookDelivery(accountId, id) {
      return delivery(db, s.getWebhookDelivery, id, accountId);
    },
    async listWebhookDeliveries({ accountId, endpointId, statuses = webhookDeliveryStatuses, limit, offset }) {
      const slots = fourSlots<WebhookDeliveryStatus | 'none'>(statuses, 'none');
      const [items, [count]] =
        endpointId === undefined
          ? await Promise.all([db.all(s.listAccountDeliveries, [accountId, ...slots, limit, offset]), db.all(s.countAccountDeliveries, [accountId, ...slots])])
          : await Promise.all([db.all(s.listEndpointDeliveries, [accountId, endpointId, ...slots, limit, offset]), db.all(s.countEndpointDeliveries, [accountId, endpointId, ...slots])]);
      return { items: items.map((row) => decode(webhookDeliveries, row)), total: Number(count?.total ?? 0) };
    },
    async redeliverWebhook(accountId, deliveryId, newId, nowMs, at) {
      return db.transaction(async (tx) => {
        const original = await delivery(tx, s.getWebhookDelivery, deliveryId, accountId);
        if (!original) return { outcome: 'missing' } as const;
        // Locked FOR SHARE: a concurrent disable waits for this insert, then fails it with the others.
        if (!(await endpoint(tx, s.sharedWebhookEndpoint, original.endpoint_id, accountId))?.enabled) return { outcome: 'disabled' } as const;
        const queued: WebhookDeliveryRecord = { ...original, id: newId, status: 'pending', attempts: [], next_attempt_ms: nowMs, redelivery_of: deliveryId, created_at: at, updated_at: at };
        await insertDelivery(tx, queued);
        return { outcome: 'queued', delivery: queued } as const;
      });
    },
    async claimWebhookDeliveries({ holder, nowMs, leaseMs, limit }) {
      if ((await db.all(s.anyDueWebhookDelivery, [nowMs, nowMs])).length === 0) return [];
      return db.transaction(async (tx) => {
        const claimed: ClaimedDelivery[] = [];
        for (const due of await tx.all(s.dueWebhookDeliveries, [nowMs, nowMs, limit])) {
          await tx.run(s.leaseWebhookDelivery, [holder, nowMs + leaseMs, due.id]);
          const leased = (await delivery(tx, s.webhookDeliveryById, due.id))!;
          const [event] = await tx.all(s.getWebhookEvent, [leased.event_id]);
          const target = await endpoint(tx, s.webhookEndpointById, leased.endpoint_id);
          // An endpoint deleted meanwhile took its deliveries with it: nothing left to send.
          if (event && target) claimed.push({ delivery: leased, event: decode(webhookEvents, event), endpoint: target });
        }
        return claimed;
      });
    },
    async finishWebhookAttempt(deliveryId, holder, outcome) {
      return db.transaction(async (tx) => {
        // The endpoint's row first, then the delivery's: the order a disable takes them in.
        const [found] = await tx.all(s.endpointOfWebhookDelivery, [deliveryId]);
        if (!found) return false;
        const target = await endpoint(tx, s.lockWebhookEndpoint, found.endpoint_id);
        const held = await delivery(tx, s.heldWebhookDelivery, deliveryId, holder);
        if (!target || !held) return false;
        const record = afterAttempt(held, outcome);
        await tx.run(s.recordWebhookAttempt, [record.status, JSON.stringify(record.attempts), record.next_attempt_ms, record.updated_at, deliveryId]);
        const failingSince = failingSinceAfter(target.failing_since, outcome);
        if (outcome.result === 'failed' && target.enabled && disablesEndpoint(failingSince, record)) {
          const at = outcome.attempt.at;
          const disabled = { ...target, failing_since: failingSince, enabled: false, disabled_reason: outcome.disableReason, disabled_at: at, updated_at: at };
          await tx.run(s.updateWebhookEndpoint, encode(db.dialect, webhookEndpoints, disabled, updatedColumns(webhookEndpoints)));
          await failQueued(tx, target.id, at);
        } else if (failingSince !== target.failing_since) {
          await tx.run(s.setWebhookFailingSince, [failingSince, target.id]);
        }
        return true;
      });
    },
    async purgeWebhookEvents(before, limit) {
      return db.run(s.purgeWebhookEvents, [new Date(before).toISOString(), limit]);
    },
    async webhookBacklog(nowMs) {
      const [row] = await db.all(s.webhookBacklog, [nowMs]);
      return { queued: Number(row?.queued ?? 0), oldestDueMs: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest) };
    },
  };
  // The events as CTEs of the change's own statement, where the dialect can (event-ctes.ts).
  return { writeEvents, eventCtes: eventCtesOf(db.dialect), methods };
}
