import { subscribesTo } from '../../core/domain/webhook-events.js';
import { applyChanges, type OutboxEvent, type OutboxPort, type WebhookEndpointsPort, type WebhookStorageMethods, type WebhookDeliveryRecord, type WebhookEndpointRecord } from '../../core/ports/storage.js';
import { afterAttempt, disablesEndpoint, failingSinceAfter, newDelivery, queuedStatuses } from '../../core/webhooks/delivery-rules.js';
import { copy, newestFirst, type MemoryStorageState } from './storage-state.js';

/**
 * Throws when the events cannot be written (an id is taken, or given twice). The methods that write
 * events call it before they change anything, so that a change whose events fail is not made either.
 */
export function assertNewEvents(s: MemoryStorageState, events: readonly OutboxEvent[] = []): void {
  const ids = new Set<string>();
  for (const event of events) {
    if (s.webhookEvents.has(event.id) || ids.has(event.id)) throw new Error(`memoryStorage: event ${event.id} exists`);
    ids.add(event.id);
  }
}

/** Writes a change's events in the order given, after assertNewEvents passed. */
export function writeEvents(s: MemoryStorageState, events: readonly OutboxEvent[] = []): void {
  for (const event of events) writeEvent(s, event);
}

/**
 * Writes an event to the outbox with its deliveries (core/ports/storage.ts, "The outbox"): to
 * `onlyEndpoint` when given, else to every enabled endpoint of the account subscribed to its type.
 * Synchronous, so that the change it comes with and it are one step. The deliveries it queued.
 */
export function writeEvent(s: MemoryStorageState, event: OutboxEvent, onlyEndpoint?: string): WebhookDeliveryRecord[] {
  assertNewEvents(s, [event]);
  const sequence = (s.outboxSequence.get('last') ?? 0) + 1;
  s.outboxSequence.set('last', sequence);
  s.webhookEvents.set(event.id, { ...copy(event), traceparent: event.traceparent ?? null, sequence });
  const targets = [...s.webhookEndpoints.values()].filter((endpoint) =>
    onlyEndpoint === undefined ? endpoint.account_id === event.account_id && endpoint.enabled && subscribesTo(endpoint.event_types, event.type) : endpoint.id === onlyEndpoint,
  );
  return targets.map((endpoint) => {
    const delivery = newDelivery(crypto.randomUUID(), endpoint.id, event, sequence);
    s.webhookDeliveries.set(delivery.id, { record: delivery, leaseHolder: null, leaseUntilMs: null });
    return copy(delivery);
  });
}

/** Fails every queued delivery of the endpoint (it is being disabled), ending their leases. */
function failQueued(s: MemoryStorageState, endpointId: string, at: string): void {
  for (const [id, held] of [...s.webhookDeliveries.entries()]) {
    if (held.record.endpoint_id !== endpointId || !queuedStatuses.includes(held.record.status)) continue;
    s.webhookDeliveries.set(id, { record: { ...held.record, status: 'failed', next_attempt_ms: null, updated_at: at }, leaseHolder: null, leaseUntilMs: null });
  }
}

/** The memory store's webhook endpoints and deliveries (docs/webhooks.md). */
export function webhookMethods(s: MemoryStorageState): WebhookStorageMethods {
  return { ...endpointMethods(s), ...outboxMethods(s) };
}

function endpointOf(s: MemoryStorageState, accountId: string, id: string): WebhookEndpointRecord | null {
  const endpoint = s.webhookEndpoints.get(id);
  return endpoint && endpoint.account_id === accountId ? endpoint : null;
}

function endpointMethods(s: MemoryStorageState): WebhookEndpointsPort {
  return {
    async insertWebhookEndpoint(endpoint, max) {
      if (s.webhookEndpoints.has(endpoint.id)) throw new Error(`memoryStorage: webhook endpoint ${endpoint.id} exists`);
      const count = [...s.webhookEndpoints.values()].filter((e) => e.account_id === endpoint.account_id).length;
      if (count >= max) return 'limit';
      s.webhookEndpoints.set(endpoint.id, copy(endpoint));
      return 'created';
    },
    async getWebhookEndpoint(accountId, id) {
      const endpoint = endpointOf(s, accountId, id);
      return endpoint ? copy(endpoint) : null;
    },
    async listWebhookEndpoints(accountId) {
      return [...s.webhookEndpoints.values()].filter((e) => e.account_id === accountId).sort(newestFirst).map(copy);
    },
    async updateWebhookEndpoint(accountId, id, changes) {
      const endpoint = endpointOf(s, accountId, id);
      if (!endpoint) return null;
      const updated = applyChanges(endpoint, changes);
      if (changes.enabled === true && !endpoint.enabled) updated.failing_since = null;
      if (changes.enabled === false && endpoint.enabled) failQueued(s, id, changes.updated_at);
      s.webhookEndpoints.set(id, updated);
      return copy(updated);
    },
    async rotateWebhookSecret(accountId, id, secret, previousExpiresAt, updatedAt) {
      const endpoint = endpointOf(s, accountId, id);
      if (!endpoint) return null;
      const rotated = { ...endpoint, secret, previous_secret: endpoint.secret, previous_secret_expires_at: previousExpiresAt, updated_at: updatedAt };
      s.webhookEndpoints.set(id, rotated);
      return copy(rotated);
    },
    async deleteWebhookEndpoint(accountId, id) {
      if (!endpointOf(s, accountId, id)) return false;
      s.webhookEndpoints.delete(id);
      for (const [deliveryId, held] of [...s.webhookDeliveries.entries()]) if (held.record.endpoint_id === id) s.webhookDeliveries.delete(deliveryId);
      return true;
    },
  };
}

function outboxMethods(s: MemoryStorageState): OutboxPort {
  return {
    async insertWebhookEvent(event, endpointId) {
      if (endpointId !== undefined) {
        const endpoint = endpointOf(s, event.account_id, endpointId);
        if (!endpoint?.enabled) return [];
      }
      return writeEvent(s, event, endpointId);
    },
    async getWebhookDelivery(accountId, id) {
      const held = s.webhookDeliveries.get(id);
      return held && held.record.account_id === accountId ? copy(held.record) : null;
    },
    async listWebhookDeliveries({ accountId, endpointId, statuses, limit, offset }) {
      const matching = [...s.webhookDeliveries.values()]
        .map((held) => held.record)
        .filter((d) => d.account_id === accountId && (endpointId === undefined || d.endpoint_id === endpointId) && (!statuses || statuses.includes(d.status)))
        .sort((a, b) => (a.created_at === b.created_at && a.event_sequence !== b.event_sequence ? b.event_sequence - a.event_sequence : newestFirst(a, b)));
      return { items: matching.slice(offset, offset + limit).map(copy), total: matching.length };
    },
    redeliverWebhook: async (accountId, deliveryId, newId, nowMs, at) => redeliver(s, accountId, deliveryId, newId, nowMs, at),
    async claimWebhookDeliveries({ holder, nowMs, leaseMs, limit }) {
      const due = [...s.webhookDeliveries.values()]
        .filter((held) => held.record.next_attempt_ms !== null && held.record.next_attempt_ms <= nowMs && (held.leaseUntilMs === null || held.leaseUntilMs <= nowMs))
        .sort((a, b) => a.record.next_attempt_ms! - b.record.next_attempt_ms! || a.record.event_sequence - b.record.event_sequence)
        .slice(0, limit);
      return due.map((held) => {
        s.webhookDeliveries.set(held.record.id, { ...held, leaseHolder: holder, leaseUntilMs: nowMs + leaseMs });
        return { delivery: copy(held.record), event: copy(s.webhookEvents.get(held.record.event_id)!), endpoint: copy(s.webhookEndpoints.get(held.record.endpoint_id)!) };
      });
    },
    finishWebhookAttempt: async (deliveryId, holder, outcome) => finishAttempt(s, deliveryId, holder, outcome),
    purgeWebhookEvents: async (before, limit) => purgeEvents(s, before, limit),
    async webhookBacklog(nowMs) {
      let queued = 0;
      let oldestDueMs: number | null = null;
      for (const { record } of s.webhookDeliveries.values()) {
        if (!queuedStatuses.includes(record.status)) continue;
        queued++;
        const due = record.next_attempt_ms;
        if (due !== null && due <= nowMs && (oldestDueMs === null || due < oldestDueMs)) oldestDueMs = due;
      }
      return { queued, oldestDueMs };
    },
  };
}

function redeliver(s: MemoryStorageState, accountId: string, deliveryId: string, newId: string, nowMs: number, at: string): Awaited<ReturnType<OutboxPort['redeliverWebhook']>> {
  const held = s.webhookDeliveries.get(deliveryId);
  if (!held || held.record.account_id !== accountId) return { outcome: 'missing' };
  if (!s.webhookEndpoints.get(held.record.endpoint_id)?.enabled) return { outcome: 'disabled' };
  const delivery: WebhookDeliveryRecord = {
    ...held.record,
    id: newId,
    status: 'pending',
    attempts: [],
    next_attempt_ms: nowMs,
    redelivery_of: deliveryId,
    created_at: at,
    updated_at: at,
  };
  s.webhookDeliveries.set(newId, { record: delivery, leaseHolder: null, leaseUntilMs: null });
  return { outcome: 'queued', delivery: copy(delivery) };
}

/** The attempt recorded by the lease's holder; the endpoint disabled when its failures say so (core/webhooks/delivery-rules.ts). */
function finishAttempt(s: MemoryStorageState, ...[deliveryId, holder, outcome]: Parameters<OutboxPort['finishWebhookAttempt']>): boolean {
  const held = s.webhookDeliveries.get(deliveryId);
  if (!held || held.leaseHolder !== holder || !queuedStatuses.includes(held.record.status)) return false;
  const record = afterAttempt(held.record, outcome);
  s.webhookDeliveries.set(deliveryId, { record, leaseHolder: null, leaseUntilMs: null });
  const endpoint = s.webhookEndpoints.get(record.endpoint_id)!;
  const failingSince = failingSinceAfter(endpoint.failing_since, outcome);
  if (outcome.result === 'failed' && endpoint.enabled && disablesEndpoint(failingSince, record)) {
    s.webhookEndpoints.set(endpoint.id, { ...endpoint, failing_since: failingSince, enabled: false, disabled_reason: outcome.disableReason, disabled_at: outcome.attempt.at, updated_at: outcome.attempt.at });
    failQueued(s, endpoint.id, outcome.attempt.at);
  } else if (failingSince !== endpoint.failing_since) {
    s.webhookEndpoints.set(endpoint.id, { ...endpoint, failing_since: failingSince });
  }
  return true;
}

/** Events older than `before` with no delivery still queued, oldest first, at most `limit`; their deliveries with them. */
function purgeEvents(s: MemoryStorageState, before: string, limit: number): number {
  const deliveries = [...s.webhookDeliveries.values()].map((held) => held.record);
  let removed = 0;
  for (const event of [...s.webhookEvents.values()].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.sequence - b.sequence)) {
    if (removed >= limit) break;
    if (Date.parse(event.created_at) >= Date.parse(before)) continue;
    const its = deliveries.filter((d) => d.event_id === event.id);
    if (its.some((d) => queuedStatuses.includes(d.status))) continue;
    for (const d of its) s.webhookDeliveries.delete(d.id);
    s.webhookEvents.delete(event.id);
    removed++;
  }
  return removed;
}
