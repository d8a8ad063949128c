/**
 * The webhook delivery rules (docs/webhooks.md), the core's to decide and every storage adapter's
 * to apply alike inside its own transaction (core/ports/storage-webhooks.ts, the outbox and
 * finishWebhookAttempt): a new delivery, a delivery after an attempt, the endpoint's failing_since
 * after it, and whether that disables the endpoint. The adapters store what these answer.
 */
import type { OutboxEvent, WebhookAttemptOutcome, WebhookDeliveryRecord, WebhookDeliveryStatus } from '../ports/storage.js';

/** The delivery of an event to one endpoint, as written with the event: pending, due at once. */
export function newDelivery(id: string, endpointId: string, event: OutboxEvent, sequence: number): WebhookDeliveryRecord {
  return {
    id,
    account_id: event.account_id,
    endpoint_id: endpointId,
    event_id: event.id,
    event_type: event.type,
    event_sequence: sequence,
    status: 'pending',
    attempts: [],
    next_attempt_ms: Date.parse(event.created_at),
    redelivery_of: null,
    created_at: event.created_at,
    updated_at: event.created_at,
  };
}

/** The delivery with the attempt recorded and moved by the outcome. */
export function afterAttempt(delivery: WebhookDeliveryRecord, outcome: WebhookAttemptOutcome): WebhookDeliveryRecord {
  const status: WebhookDeliveryStatus = outcome.result === 'retry' ? 'retrying' : outcome.result;
  return {
    ...delivery,
    status,
    attempts: [...delivery.attempts, { ...outcome.attempt }],
    next_attempt_ms: outcome.result === 'retry' ? outcome.nextAttemptMs : null,
    updated_at: outcome.attempt.at,
  };
}

/** The endpoint's failing_since after an attempt: cleared by a success, set by the first failure after one. */
export function failingSinceAfter(current: string | null, outcome: WebhookAttemptOutcome): string | null {
  if (outcome.result === 'succeeded') return null;
  return current ?? outcome.attempt.at;
}

/**
 * Whether a delivery that failed for good disables its endpoint: when nothing to the endpoint
 * succeeded since the delivery's first attempt (the endpoint's failing_since is at or before it).
 * Timestamps are toISOString() text, so text order is time order.
 */
export function disablesEndpoint(failingSince: string | null, failed: WebhookDeliveryRecord): boolean {
  const first = failed.attempts[0]?.at;
  return failingSince !== null && first !== undefined && failingSince <= first;
}

/** The statuses of a delivery still waiting for an attempt. */
export const queuedStatuses: readonly WebhookDeliveryStatus[] = ['pending', 'retrying'];
