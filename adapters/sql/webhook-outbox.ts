/**
 * The outbox of the SQL core (core/ports/storage-webhooks.ts, "The outbox"): events written with
 * the change that made them, their deliveries queued, claimed under a lease and finished.
 */
import { subscribesTo } from '../../core/domain/webhook-events.js';
import type { ClaimedDelivery, OutboxEvent, OutboxPort, WebhookDeliveryRecord, WebhookDeliveryStatus } from '../../core/ports/storage.js';
import { webhookDeliveryStatuses } from '../../core/ports/webhook-records.js';
import { afterAttempt, disablesEndpoint, failingSinceAfter, newDelivery } from '../../core/webhooks/delivery-rules.js';
import { fourSlots, type SqlSession } from './session.js';
import { decode, encode, webhookEndpoints, webhookEvents, webhookDeliveries, updatedColumns } from './tables.js';
import { deliveryRow, endpointRow, failQueued, insertDelivery, type SqlWebhooks } from './webhook-statements.js';

/** Writes the event and queues its deliveries, on the session of a transaction. The deliveries queued. */
export async function writeEvent(w: SqlWebhooks, tx: SqlSession, event: OutboxEvent, onlyEndpoint?: string): Promise<WebhookDeliveryRecord[]> {
  const { s } = w;
  const [row] = await tx.all(s.insertWebhookEvent, [event.id, event.type, event.account_id, event.subject_id, event.created_at, event.data, event.traceparent ?? null]);
  const targets =
    onlyEndpoint !== undefined
      ? [onlyEndpoint]
      : (await tx.all(s.endpointsOfEvent, [event.account_id]))
          .map((found) => decode(webhookEndpoints, found))
          .filter((e) => e.enabled && subscribesTo(e.event_types, event.type))
          .map((e) => e.id);
  const deliveries = targets.map((target) => newDelivery(crypto.randomUUID(), target, event, Number(row!.sequence)));
  for (const queued of deliveries) await insertDelivery(w, tx, queued);
  return deliveries;
}

export function outboxMethods(w: SqlWebhooks): OutboxPort {
  const { db, s } = w;
  return {
    async insertWebhookEvent(event, endpointId) {
      return db.transaction(async (tx) => {
        if (endpointId !== undefined && !(await endpointRow(tx, s.sharedWebhookEndpoint, endpointId, event.account_id))?.enabled) return [];
        return writeEvent(w, tx, event, endpointId);
      });
    },
    getWebhookDelivery: (accountId, id) => deliveryRow(db, s.getWebhookDelivery, id, accountId),
    listWebhookDeliveries: (query) => listDeliveries(w, query),
    redeliverWebhook: (accountId, deliveryId, newId, nowMs, at) => redeliver(w, accountId, deliveryId, newId, nowMs, at),
    claimWebhookDeliveries: (claim) => claimDeliveries(w, claim),
    finishWebhookAttempt: (deliveryId, holder, outcome) => finishAttempt(w, deliveryId, holder, outcome),
    async purgeWebhookEvents(before, limit) {
      return db.run(s.purgeWebhookEvents, [new Date(before).toISOString(), limit]);
    },
    async webhookBacklog(nowMs) {
      const [row] = await db.all(s.webhookBacklog, [nowMs]);
      return { queued: Number(row?.queued ?? 0), oldestDueMs: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest) };
    },
  };
}

async function listDeliveries({ db, s }: SqlWebhooks, { accountId, endpointId, statuses = webhookDeliveryStatuses, limit, offset }: Parameters<OutboxPort['listWebhookDeliveries']>[0]) {
  const slots = fourSlots<WebhookDeliveryStatus | 'none'>(statuses, 'none');
  const [items, [count]] =
    endpointId === undefined
      ? await Promise.all([db.all(s.listAccountDeliveries, [accountId, ...slots, limit, offset]), db.all(s.countAccountDeliveries, [accountId, ...slots])])
      : await Promise.all([db.all(s.listEndpointDeliveries, [accountId, endpointId, ...slots, limit, offset]), db.all(s.countEndpointDeliveries, [accountId, endpointId, ...slots])]);
  return { items: items.map((row) => decode(webhookDeliveries, row)), total: Number(count?.total ?? 0) };
}

function redeliver(w: SqlWebhooks, accountId: string, deliveryId: string, newId: string, nowMs: number, at: string) {
  const { db, s } = w;
  return db.transaction(async (tx) => {
    const original = await deliveryRow(tx, s.getWebhookDelivery, deliveryId, accountId);
    if (!original) return { outcome: 'missing' } as const;
    // Locked FOR SHARE: a concurrent disable waits for this insert, then fails it with the others.
    if (!(await endpointRow(tx, s.sharedWebhookEndpoint, original.endpoint_id, accountId))?.enabled) return { outcome: 'disabled' } as const;
    const queued: WebhookDeliveryRecord = { ...original, id: newId, status: 'pending', attempts: [], next_attempt_ms: nowMs, redelivery_of: deliveryId, created_at: at, updated_at: at };
    await insertDelivery(w, tx, queued);
    return { outcome: 'queued', delivery: queued } as const;
  });
}

async function claimDeliveries({ db, s }: SqlWebhooks, { holder, nowMs, leaseMs, limit }: Parameters<OutboxPort['claimWebhookDeliveries']>[0]): Promise<ClaimedDelivery[]> {
  if ((await db.all(s.anyDueWebhookDelivery, [nowMs, nowMs])).length === 0) return [];
  return db.transaction(async (tx) => {
    const claimed: ClaimedDelivery[] = [];
    for (const due of await tx.all(s.dueWebhookDeliveries, [nowMs, nowMs, limit])) {
      await tx.run(s.leaseWebhookDelivery, [holder, nowMs + leaseMs, due.id]);
      const leased = (await deliveryRow(tx, s.webhookDeliveryById, due.id))!;
      const [event] = await tx.all(s.getWebhookEvent, [leased.event_id]);
      const target = await endpointRow(tx, s.webhookEndpointById, leased.endpoint_id);
      // An endpoint deleted meanwhile took its deliveries with it: nothing left to send.
      if (event && target) claimed.push({ delivery: leased, event: decode(webhookEvents, event), endpoint: target });
    }
    return claimed;
  });
}

function finishAttempt(w: SqlWebhooks, ...[deliveryId, holder, outcome]: Parameters<OutboxPort['finishWebhookAttempt']>): Promise<boolean> {
  const { db, s } = w;
  return db.transaction(async (tx) => {
    // The endpoint's row first, then the delivery's: the order a disable takes them in.
    const [found] = await tx.all(s.endpointOfWebhookDelivery, [deliveryId]);
    if (!found) return false;
    const target = await endpointRow(tx, s.lockWebhookEndpoint, found.endpoint_id);
    const held = await deliveryRow(tx, s.heldWebhookDelivery, deliveryId, holder);
    if (!target || !held) return false;
    const record = afterAttempt(held, outcome);
    await tx.run(s.recordWebhookAttempt, [record.status, JSON.stringify(record.attempts), record.next_attempt_ms, record.updated_at, deliveryId]);
    const failingSince = failingSinceAfter(target.failing_since, outcome);
    if (outcome.result === 'failed' && target.enabled && disablesEndpoint(failingSince, record)) {
      const at = outcome.attempt.at;
      const disabled = { ...target, failing_since: failingSince, enabled: false, disabled_reason: outcome.disableReason, disabled_at: at, updated_at: at };
      await tx.run(s.updateWebhookEndpoint, encode(db.dialect, webhookEndpoints, disabled, updatedColumns(webhookEndpoints)));
      await failQueued(w, tx, target.id, at);
    } else if (failingSince !== target.failing_since) {
      await tx.run(s.setWebhookFailingSince, [failingSince, target.id]);
    }
    return true;
  });
}
