import { subscribesTo } from '../../core/domain/webhook-events.js';
import { applyChanges, type OutboxEvent, type WebhookStorageMethods, type WebhookDeliveryRecord, type WebhookDeliveryStatus } from '../../core/ports/storage.js';
import { webhookDeliveryStatuses } from '../../core/ports/webhook-records.js';
import { afterAttempt, disablesEndpoint, failingSinceAfter, newDelivery } from '../webhook-rules.js';
import type { SqliteDriver, SqliteStatement, SqlValue } from './drivers/driver.js';
import type { QueryName } from './queries.js';
import { updatedColumns } from '../sql-records.js';
import { decode, encode, webhookDeliveries, webhookEndpoints } from './records.js';

/** The four status slots of a list query: the statuses asked for, the last repeated. */
const statusSlots = (statuses: readonly WebhookDeliveryStatus[] = webhookDeliveryStatuses): string[] =>
  [0, 1, 2, 3].map((i) => statuses[Math.min(i, statuses.length - 1)] ?? 'none');

/**
 * Webhooks on SQLite (core/ports/storage.ts, "The outbox"), in the tables of migration 7. Each
 * method is one statement or one BEGIN IMMEDIATE transaction; `writeEvents` runs inside the
 * transaction of the change it comes with (sqlite-storage.ts), so the two commit together or not
 * at all. These writes move changeVersion, as every write on this file does (total_changes): the
 * claims and attempts of a worker then cost the read cache its kept reads, a few times a second
 * at most while deliveries are under way.
 */
export function webhookMethods(db: SqliteDriver, q: (name: QueryName) => SqliteStatement) {
  const run = (name: QueryName, ...params: SqlValue[]) => q(name).run(...params).changes;
  const endpoint = (found: ReturnType<SqliteStatement['get']>) => (found ? decode(webhookEndpoints, found) : null);
  const delivery = (found: ReturnType<SqliteStatement['get']>) => (found ? decode(webhookDeliveries, found) : null);

  /** Writes the event and queues its deliveries; call it inside a transaction. The deliveries queued. */
  function writeEvent(event: OutboxEvent, onlyEndpoint?: string): WebhookDeliveryRecord[] {
    const sequence = Number(q('insertWebhookEvent').get(event.id, event.type, event.account_id, event.subject_id, event.created_at, event.data)!.sequence);
    const targets =
      onlyEndpoint === undefined
        ? q('listWebhookEndpoints')
            .all(event.account_id)
            .map((row) => decode(webhookEndpoints, row))
            .filter((e) => e.enabled && subscribesTo(e.event_types, event.type))
        : [endpoint(q('getWebhookEndpoint').get(onlyEndpoint, event.account_id))!];
    return targets.map((target) => {
      const queued = newDelivery(crypto.randomUUID(), target.id, event, sequence);
      run('insertWebhookDelivery', ...encode(webhookDeliveries, queued));
      return queued;
    });
  }

  /** Writes a change's events in the order given; call it inside the change's transaction. */
  function writeEvents(events: readonly OutboxEvent[] = []): void {
    for (const event of events) writeEvent(event);
  }

  const methods: WebhookStorageMethods = {
    async insertWebhookEvent(event, endpointId) {
      return db.transaction(() => {
        if (endpointId !== undefined && !endpoint(q('getWebhookEndpoint').get(endpointId, event.account_id))?.enabled) return [];
        return writeEvent(event, endpointId);
      });
    },
    async insertWebhookEndpoint(record, max) {
      return db.transaction(() => {
        if (Number(q('countWebhookEndpoints').get(record.account_id)?.count ?? 0) >= max) return 'limit' as const;
        run('insertWebhookEndpoint', ...encode(webhookEndpoints, record));
        return 'created' as const;
      });
    },
    async getWebhookEndpoint(accountId, id) {
      return endpoint(q('getWebhookEndpoint').get(id, accountId));
    },
    async listWebhookEndpoints(accountId) {
      return q('listWebhookEndpoints')
        .all(accountId)
        .map((row) => decode(webhookEndpoints, row));
    },
    async updateWebhookEndpoint(accountId, id, changes) {
      return db.transaction(() => {
        const current = endpoint(q('getWebhookEndpoint').get(id, accountId));
        if (!current) return null;
        const updated = applyChanges(current, changes);
        if (changes.enabled === true && !current.enabled) updated.failing_since = null;
        if (changes.enabled === false && current.enabled) run('failQueuedWebhookDeliveries', changes.updated_at, id);
        run('updateWebhookEndpoint', ...encode(webhookEndpoints, updated, updatedColumns(webhookEndpoints)));
        return updated;
      });
    },
    async rotateWebhookSecret(accountId, id, secret, previousExpiresAt, updatedAt) {
      return db.transaction(() => {
        if (run('rotateWebhookSecret', secret, previousExpiresAt, updatedAt, id, accountId) === 0) return null;
        return endpoint(q('getWebhookEndpoint').get(id, accountId));
      });
    },
    async deleteWebhookEndpoint(accountId, id) {
      // Its deliveries go with it (ON DELETE CASCADE).
      return run('deleteWebhookEndpoint', id, accountId) === 1;
    },
    async getWebhookDelivery(accountId, id) {
      return delivery(q('getWebhookDelivery').get(id, accountId));
    },
    async listWebhookDeliveries({ accountId, endpointId, statuses, limit, offset }) {
      const slots = statusSlots(statuses);
      const [items, count] =
        endpointId === undefined
          ? [q('listAccountDeliveries').all(accountId, ...slots, limit, offset), q('countAccountDeliveries').get(accountId, ...slots)]
          : [q('listEndpointDeliveries').all(accountId, endpointId, ...slots, limit, offset), q('countEndpointDeliveries').get(accountId, endpointId, ...slots)];
      return { items: items.map((row) => decode(webhookDeliveries, row)), total: Number(count?.total ?? 0) };
    },
    async redeliverWebhook(accountId, deliveryId, newId, nowMs, at) {
      return db.transaction(() => {
        const original = delivery(q('getWebhookDelivery').get(deliveryId, accountId));
        if (!original) return { outcome: 'missing' } as const;
        if (!endpoint(q('webhookEndpointById').get(original.endpoint_id))?.enabled) return { outcome: 'disabled' } as const;
        const queued: WebhookDeliveryRecord = { ...original, id: newId, status: 'pending', attempts: [], next_attempt_ms: nowMs, redelivery_of: deliveryId, created_at: at, updated_at: at };
        run('insertWebhookDelivery', ...encode(webhookDeliveries, queued));
        return { outcome: 'queued', delivery: queued } as const;
      });
    },
    async claimWebhookDeliveries({ holder, nowMs, leaseMs, limit }) {
      if (!q('anyDueWebhookDelivery').get(nowMs, nowMs)) return [];
      // BEGIN IMMEDIATE: no other connection claims between this one's read and its leases.
      return db.transaction(() =>
        q('dueWebhookDeliveries')
          .all(nowMs, nowMs, limit)
          .map((due) => {
            const id = due.id as string;
            run('leaseWebhookDelivery', holder, nowMs + leaseMs, id);
            const claimed = delivery(q('webhookDeliveryById').get(id))!;
            const row = q('getWebhookEvent').get(claimed.event_id)!;
            const event = { id: String(row.id), type: String(row.type), account_id: String(row.account_id), subject_id: String(row.subject_id), created_at: String(row.created_at), data: String(row.data), sequence: Number(row.sequence) };
            return { delivery: claimed, event, endpoint: endpoint(q('webhookEndpointById').get(claimed.endpoint_id))! };
          }),
      );
    },
    async finishWebhookAttempt(deliveryId, holder, outcome) {
      return db.transaction(() => {
        const held = delivery(q('heldWebhookDelivery').get(deliveryId, holder));
        if (!held) return false;
        const record = afterAttempt(held, outcome);
        run('recordWebhookAttempt', record.status, JSON.stringify(record.attempts), record.next_attempt_ms, record.updated_at, deliveryId);
        const target = endpoint(q('webhookEndpointById').get(record.endpoint_id))!;
        const failingSince = failingSinceAfter(target.failing_since, outcome);
        if (outcome.result === 'failed' && target.enabled && disablesEndpoint(failingSince, record)) {
          const at = outcome.attempt.at;
          run('updateWebhookEndpoint', ...encode(webhookEndpoints, { ...target, failing_since: failingSince, enabled: false, disabled_reason: outcome.disableReason, disabled_at: at, updated_at: at }, updatedColumns(webhookEndpoints)));
          run('failQueuedWebhookDeliveries', at, target.id);
        } else if (failingSince !== target.failing_since) {
          run('setWebhookFailingSince', failingSince, target.id);
        }
        return true;
      });
    },
    async purgeWebhookEvents(before, limit) {
      return db.transaction(() => {
        const old = q('oldWebhookEvents').all(new Date(before).toISOString(), limit);
        // Their deliveries go with them (ON DELETE CASCADE).
        for (const row of old) run('deleteWebhookEvent', row.id as string);
        return old.length;
      });
    },
  };
  return { writeEvents, methods };
}
