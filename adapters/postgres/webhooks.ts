import { applyChanges, type ClaimedDelivery, type OutboxEvent, type WebhookStorageMethods, type WebhookDeliveryRecord } from '../../core/ports/storage.js';
import { webhookDeliveryStatuses } from '../../core/ports/webhook-records.js';
import { updatedColumns } from '../sql-records.js';
import { afterAttempt, disablesEndpoint, failingSinceAfter } from '../webhook-rules.js';
import type { PgDriver, PgSession } from './driver.js';
import { statements, type QueryName } from './queries.js';
import { decode, encode, webhookDeliveries, webhookEndpoints, webhookEvents } from './records.js';

const query = (session: PgSession, name: QueryName, ...params: unknown[]) => session.query(statements[name], params);

/**
 * Writes the event and queues its deliveries in one statement, on the session of the change's
 * transaction (postgres-storage.ts): the two commit together or not at all. To `onlyEndpoint`
 * when given (the caller has locked it and checked it is enabled), else fanned out. The deliveries queued.
 */
export async function writeEvent(session: PgSession, event: OutboxEvent, onlyEndpoint?: string): Promise<WebhookDeliveryRecord[]> {
  const params = [event.id, event.type, event.account_id, event.subject_id, event.created_at, event.data, Date.parse(event.created_at)];
  const result = onlyEndpoint === undefined ? await query(session, 'writeWebhookEvent', ...params) : await query(session, 'writeWebhookEventTo', ...params, onlyEndpoint);
  return result.rows.map((row) => decode(webhookDeliveries, row));
}

/** Writes a change's events in the order given, on the session of its transaction. */
export async function writeEvents(session: PgSession, events: readonly OutboxEvent[] = []): Promise<void> {
  for (const event of events) await writeEvent(session, event);
}

/**
 * Webhooks on PostgreSQL (core/ports/storage.ts, "The outbox"), in the tables of migration 5. They
 * move no changeVersion in either mode: the tables have no trigger that bumps `marketkit_changes`,
 * and these methods are not among the writes that tell other instances (the outbox's events are
 * written by writes that are). A claim is one statement with `FOR UPDATE SKIP LOCKED`; everything
 * that changes an endpoint and its deliveries together locks the endpoint's row first.
 */
export function webhookMethods(db: PgDriver): WebhookStorageMethods {
  const rows = async (session: PgSession, name: QueryName, ...params: unknown[]) => (await query(session, name, ...params)).rows;
  const endpoint = async (session: PgSession, name: QueryName, ...params: unknown[]) => {
    const [row] = await rows(session, name, ...params);
    return row ? decode(webhookEndpoints, row) : null;
  };
  /** Fails the endpoint's queued deliveries, inside the transaction that disables it. */
  const failQueued = (tx: PgSession, endpointId: string, at: string) => query(tx, 'failQueuedWebhookDeliveries', at, endpointId);

  return {
    async insertWebhookEvent(event, endpointId) {
      if (endpointId === undefined) return db.transaction((tx) => writeEvent(tx, event));
      return db.transaction(async (tx) => {
        const [target] = await rows(tx, 'webhookEndpointForShare', endpointId, event.account_id);
        return target?.enabled ? writeEvent(tx, event, endpointId) : [];
      });
    },
    async insertWebhookEndpoint(record, max) {
      return db.transaction(async (tx) => {
        await query(tx, 'lockAccountForEndpoint', record.account_id);
        const [count] = await rows(tx, 'countWebhookEndpoints', record.account_id);
        if (Number(count?.count ?? 0) >= max) return 'limit' as const;
        await query(tx, 'insertWebhookEndpoint', ...encode(webhookEndpoints, record));
        return 'created' as const;
      });
    },
    async getWebhookEndpoint(accountId, id) {
      return endpoint(db, 'getWebhookEndpoint', id, accountId);
    },
    async listWebhookEndpoints(accountId) {
      return (await rows(db, 'listWebhookEndpoints', accountId)).map((row) => decode(webhookEndpoints, row));
    },
    async updateWebhookEndpoint(accountId, id, changes) {
      return db.transaction(async (tx) => {
        const current = await endpoint(tx, 'getWebhookEndpointForUpdate', id, accountId);
        if (!current) return null;
        const updated = applyChanges(current, changes);
        if (changes.enabled === true && !current.enabled) updated.failing_since = null;
        if (changes.enabled === false && current.enabled) await failQueued(tx, id, changes.updated_at);
        await query(tx, 'updateWebhookEndpoint', ...encode(webhookEndpoints, updated, updatedColumns(webhookEndpoints)));
        return updated;
      });
    },
    async rotateWebhookSecret(accountId, id, secret, previousExpiresAt, updatedAt) {
      return endpoint(db, 'rotateWebhookSecret', secret, previousExpiresAt, updatedAt, id, accountId);
    },
    async deleteWebhookEndpoint(accountId, id) {
      // Its deliveries go with it (ON DELETE CASCADE).
      return (await query(db, 'deleteWebhookEndpoint', id, accountId)).rowCount === 1;
    },
    async getWebhookDelivery(accountId, id) {
      const [row] = await rows(db, 'getWebhookDelivery', id, accountId);
      return row ? decode(webhookDeliveries, row) : null;
    },
    async listWebhookDeliveries({ accountId, endpointId, statuses = webhookDeliveryStatuses, limit, offset }) {
      const wanted = [...statuses];
      const [items, [count]] =
        endpointId === undefined
          ? await Promise.all([rows(db, 'listAccountDeliveries', accountId, wanted, limit, offset), rows(db, 'countAccountDeliveries', accountId, wanted)])
          : await Promise.all([rows(db, 'listEndpointDeliveries', accountId, endpointId, wanted, limit, offset), rows(db, 'countEndpointDeliveries', accountId, endpointId, wanted)]);
      return { items: items.map((row) => decode(webhookDeliveries, row)), total: Number(count?.total ?? 0) };
    },
    async redeliverWebhook(accountId, deliveryId, newId, nowMs, at) {
      return db.transaction(async (tx) => {
        const [row] = await rows(tx, 'getWebhookDelivery', deliveryId, accountId);
        if (!row) return { outcome: 'missing' } as const;
        const original = decode(webhookDeliveries, row);
        // Locked FOR SHARE: a concurrent disable waits for this insert, then fails it with the others.
        const [target] = await rows(tx, 'webhookEndpointForShare', original.endpoint_id, accountId);
        if (!target?.enabled) return { outcome: 'disabled' } as const;
        const queued: WebhookDeliveryRecord = { ...original, id: newId, status: 'pending', attempts: [], next_attempt_ms: nowMs, redelivery_of: deliveryId, created_at: at, updated_at: at };
        await query(tx, 'insertWebhookDelivery', ...encode(webhookDeliveries, queued));
        return { outcome: 'queued', delivery: queued } as const;
      });
    },
    async claimWebhookDeliveries({ holder, nowMs, leaseMs, limit }) {
      const claimed = (await rows(db, 'claimWebhookDeliveries', nowMs, limit, holder, nowMs + leaseMs)).map((row) => decode(webhookDeliveries, row));
      if (claimed.length === 0) return [];
      const [events, endpoints] = await Promise.all([
        rows(db, 'webhookEventsById', [...new Set(claimed.map((d) => d.event_id))]),
        rows(db, 'webhookEndpointsById', [...new Set(claimed.map((d) => d.endpoint_id))]),
      ]);
      const eventById = new Map(events.map((row) => [row.id as string, decode(webhookEvents, row)]));
      const endpointById = new Map(endpoints.map((row) => [row.id as string, decode(webhookEndpoints, row)]));
      // An endpoint deleted since the claim took its deliveries with it: nothing left to send.
      return claimed
        .filter((d) => eventById.has(d.event_id) && endpointById.has(d.endpoint_id))
        .sort((a, b) => a.next_attempt_ms! - b.next_attempt_ms! || a.event_sequence - b.event_sequence)
        .map((d): ClaimedDelivery => ({ delivery: d, event: eventById.get(d.event_id)!, endpoint: endpointById.get(d.endpoint_id)! }));
    },
    async finishWebhookAttempt(deliveryId, holder, outcome) {
      return db.transaction(async (tx) => {
        // The endpoint's row first, then the delivery's: the order a disable takes them in.
        const [found] = await rows(tx, 'endpointOfWebhookDelivery', deliveryId);
        if (!found) return false;
        const target = await endpoint(tx, 'lockWebhookEndpoint', found.endpoint_id);
        const [row] = await rows(tx, 'heldWebhookDelivery', deliveryId, holder);
        if (!target || !row) return false;
        const record = afterAttempt(decode(webhookDeliveries, row), outcome);
        await query(tx, 'recordWebhookAttempt', record.status, JSON.stringify(record.attempts), record.next_attempt_ms, record.updated_at, deliveryId);
        const failingSince = failingSinceAfter(target.failing_since, outcome);
        if (outcome.result === 'failed' && target.enabled && disablesEndpoint(failingSince, record)) {
          const at = outcome.attempt.at;
          const disabled = { ...target, failing_since: failingSince, enabled: false, disabled_reason: outcome.disableReason, disabled_at: at, updated_at: at };
          await query(tx, 'updateWebhookEndpoint', ...encode(webhookEndpoints, disabled, updatedColumns(webhookEndpoints)));
          await failQueued(tx, target.id, at);
        } else if (failingSince !== target.failing_since) {
          await query(tx, 'setWebhookFailingSince', failingSince, target.id);
        }
        return true;
      });
    },
    async purgeWebhookEvents(before, limit) {
      return (await query(db, 'purgeWebhookEvents', new Date(before).toISOString(), limit)).rowCount;
    },
  };
}
