/**
 * The webhook records the storage port (core/ports/storage.ts) holds: the outbox of events, the
 * sellers' endpoints and the deliveries of events to endpoints (docs/webhooks.md).
 */

/**
 * A state change as webhooks deliver it, written by the storage method that makes the change, in
 * the same transaction (the outbox). The core builds it; the store gives it its `sequence`.
 */
export interface OutboxEvent {
  /** A UUID: the delivered `id` and `webhook-id`, the same in every attempt. */
  id: string;
  /** A type of core/domain/webhook-events.ts. */
  type: string;
  /** The account whose endpoints get it. */
  account_id: string;
  /** What it is about (a listing's or a token's id): the events of one subject get growing sequences in the order of the changes. */
  subject_id: string;
  /** When the change happened (ISO 8601); its deliveries are due from then. */
  created_at: string;
  /** The delivered `data` object as JSON text, kept exactly as written. */
  data: string;
  /**
   * The W3C `traceparent` of the request span whose change wrote the event (at most
   * `maxTraceparentLength` characters), so that whichever instance delivers it links its delivery
   * span there; null or absent when tracing was off or no request caused it. Never delivered.
   */
  traceparent?: string | null;
}

/** The longest traceparent an event keeps (a version-00 one is 55 characters; later versions may add fields). */
export const maxTraceparentLength = 128;

/** An event as stored: with the number the store gave it, which grows with every event written, and its traceparent (null when it came without one). */
export interface StoredEvent extends OutboxEvent {
  traceparent: string | null;
  sequence: number;
}

export interface WebhookEndpointRecord {
  id: string;
  account_id: string;
  url: string;
  description: string | null;
  /** Event types, or `['*']` for every type. */
  event_types: string[];
  enabled: boolean;
  /** Why it was disabled (by the seller, or after failing for days); null while enabled. */
  disabled_reason: string | null;
  disabled_at: string | null;
  /** The signing secret, `whsec_` and base64. Stored as is: deliveries are signed with it. */
  secret: string;
  /** The secret before the last rotation, signing beside the new one until `previous_secret_expires_at`. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  /** The first failed attempt since the last successful one; null when the last attempt succeeded (or none was made). */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

/** What updateWebhookEndpoint may change. */
export type WebhookEndpointChanges = Partial<Pick<WebhookEndpointRecord, 'url' | 'description' | 'event_types' | 'enabled' | 'disabled_reason' | 'disabled_at'>> & {
  updated_at: string;
};

/**
 * Where a delivery is: `pending` until its first attempt, `retrying` after a failed one while
 * attempts are left, `succeeded` once one got a 2xx, `failed` after its last attempt failed or its
 * endpoint was disabled.
 */
export type WebhookDeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed';

export const webhookDeliveryStatuses: readonly WebhookDeliveryStatus[] = ['pending', 'retrying', 'succeeded', 'failed'];

/** One attempt: the HTTP status the endpoint answered, or the error that stopped it (`timeout`, a refused address, ...). */
export interface WebhookAttempt {
  at: string;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
}

export interface WebhookDeliveryRecord {
  id: string;
  account_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  /** The event's sequence: first attempts due at one time are made in this order. */
  event_sequence: number;
  status: WebhookDeliveryStatus;
  /** Every attempt so far, oldest first. */
  attempts: WebhookAttempt[];
  /** When the next attempt is due (epoch ms); null once succeeded or failed. */
  next_attempt_ms: number | null;
  /** The delivery this one delivers again (POST .../redeliver); null for the first. */
  redelivery_of: string | null;
  created_at: string;
  updated_at: string;
}

/** A worker's claim of due deliveries: claimWebhookDeliveries. */
export interface WebhookClaim {
  /** Who sends them: a fresh id per worker. */
  holder: string;
  nowMs: number;
  /** How long the claim holds them: past it, a delivery its worker never finished (the worker died) is due again. */
  leaseMs: number;
  limit: number;
}

/** A claimed delivery, with what sending it needs. */
export interface ClaimedDelivery {
  delivery: WebhookDeliveryRecord;
  event: StoredEvent;
  endpoint: WebhookEndpointRecord;
}

/** How an attempt ended: finishWebhookAttempt. */
export type WebhookAttemptOutcome =
  | { result: 'succeeded'; attempt: WebhookAttempt }
  | { result: 'retry'; attempt: WebhookAttempt; nextAttemptMs: number }
  /** The last attempt failed: the delivery fails, and its endpoint is disabled with `disableReason` when no attempt to it succeeded since this delivery's first. */
  | { result: 'failed'; attempt: WebhookAttempt; disableReason: string };

export interface WebhookDeliveryQuery {
  accountId: string;
  /** One endpoint's deliveries; every endpoint's of the account when left out. */
  endpointId?: string;
  /** Only these statuses; all when left out. */
  statuses?: readonly WebhookDeliveryStatus[];
  limit: number;
  offset: number;
}

export type RedeliverResult =
  | { outcome: 'queued'; delivery: WebhookDeliveryRecord }
  /** No such delivery of the account. */
  | { outcome: 'missing' }
  /** Its endpoint is disabled: nothing was queued. */
  | { outcome: 'disabled' };
