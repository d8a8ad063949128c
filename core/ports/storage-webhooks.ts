import type {
  ClaimedDelivery,
  OutboxEvent,
  RedeliverResult,
  WebhookAttemptOutcome,
  WebhookClaim,
  WebhookDeliveryQuery,
  WebhookDeliveryRecord,
  WebhookEndpointChanges,
  WebhookEndpointRecord,
} from './webhook-records.js';

/**
 * The outbox and its deliveries, a capability port of StoragePort (core/ports/storage.ts): events,
 * deliveries, claims and attempts. The methods of StoragePort that take `events` write them as the
 * rule below says. The endpoints they go to are WebhookEndpointsPort, below.
 */
export interface OutboxPort {
  /*
   * The outbox (docs/webhooks.md; docs/adapters.md, "Webhooks: for adapter authors"). A StoragePort method
   * that takes `events` MUST write every one of them in the same transaction as its change, and only
   * when the change is made: a change and its events are stored together or not at all, whatever
   * fails or whoever else writes. The events of one change are written in the order given. Writing
   * an event gives it the next `sequence` (a number larger than every earlier event's, those of the
   * same change included; of two events about one subject, the later one's is larger) and queues a
   * delivery (`pending`, due at the event's created_at) for each endpoint of its account that is
   * enabled and subscribes to its type (core/domain/webhook-events.ts, subscribesTo), as stored at
   * that moment. Delivery ids are UUIDs the store makes.
   */

  /**
   * Writes an event that comes with no change (a test event) and queues its deliveries: to the
   * account's endpoint `endpointId` only, whatever it subscribes to, when given (none when that
   * endpoint is missing, another account's or disabled); else as a change's event is. The deliveries queued.
   */
  insertWebhookEvent(event: OutboxEvent, endpointId?: string): Promise<WebhookDeliveryRecord[]>;
  /** The account's delivery with this id; null when none. */
  getWebhookDelivery(accountId: string, id: string): Promise<WebhookDeliveryRecord | null>;
  /** Deliveries, newest first (created_at desc, then event_sequence desc, then id desc), a page of them and the total that match. */
  listWebhookDeliveries(query: WebhookDeliveryQuery): Promise<{ items: WebhookDeliveryRecord[]; total: number }>;
  /**
   * Queues the event of the account's delivery `deliveryId` again, as a new delivery `newId`
   * (`pending`, due at `nowMs`, `redelivery_of` the old one) to the same endpoint, if that endpoint is
   * enabled (`disabled` otherwise): the check and the insert are one atomic step.
   */
  redeliverWebhook(accountId: string, deliveryId: string, newId: string, nowMs: number, at: string): Promise<RedeliverResult>;
  /**
   * Claims up to `limit` deliveries that are due (`next_attempt_ms` at or before `nowMs`) and not
   * leased (no lease, or one that ran out), earliest due first (then by event sequence), leasing each
   * to `holder` until `nowMs + leaseMs`. Atomic: of any number of concurrent claims, by any number of
   * processes, no two MUST get the same delivery while its lease runs; a claim skips what another
   * holds rather than waiting for it.
   */
  claimWebhookDeliveries(claim: WebhookClaim): Promise<ClaimedDelivery[]>;
  /**
   * Records an attempt of a delivery that `holder` leased and that is still `pending` or `retrying`
   * (false, and nothing changed, otherwise: the lease was taken over, or the endpoint disabled),
   * ends the lease, and moves the delivery by `outcome`: `succeeded`; `retrying` due at `nextAttemptMs`;
   * or `failed`. The endpoint's `failing_since` is cleared by a success and set by a failure when it is
   * null. On `failed`, when the endpoint's `failing_since` is at or before this delivery's first
   * attempt (nothing succeeded since), the endpoint is disabled with `disableReason` (disabled_at the
   * attempt's time) and its other queued deliveries fail, as updateWebhookEndpoint disables.
   */
  finishWebhookAttempt(deliveryId: string, holder: string, outcome: WebhookAttemptOutcome): Promise<boolean>;
  /**
   * Removes up to `limit` events created before `before` (ISO 8601) none of whose deliveries is
   * `pending` or `retrying`, with their deliveries; how many events it removed.
   */
  purgeWebhookEvents(before: string, limit: number): Promise<number>;
  /**
   * For metrics (docs/operations.md): how many deliveries are queued (`pending` or `retrying`), and
   * the time (ms) the oldest of those due at `nowMs` became due, null when none is due. Optional:
   * without it the backlog is not reported.
   */
  webhookBacklog?(nowMs: number): Promise<{ queued: number; oldestDueMs: number | null }>;
}

/**
 * A seller's webhook endpoints, a capability port of StoragePort: where the outbox's deliveries go
 * (OutboxPort queues one for each endpoint that subscribes, as stored when the event is written).
 */
export interface WebhookEndpointsPort {
  /** Inserts an endpoint unless its account has `max` already (`limit`). Atomic: concurrent inserts never exceed `max`. */
  insertWebhookEndpoint(endpoint: WebhookEndpointRecord, max: number): Promise<'created' | 'limit'>;
  /** The account's endpoint with this id; null when none (another account's included). */
  getWebhookEndpoint(accountId: string, id: string): Promise<WebhookEndpointRecord | null>;
  /** The account's endpoints, newest first (created_at desc, then id desc). */
  listWebhookEndpoints(accountId: string): Promise<WebhookEndpointRecord[]>;
  /**
   * Applies `changes` to the account's endpoint; null when there is none. Enabling it clears
   * `failing_since`. Disabling it (`enabled: false` on an enabled one) ends every delivery of it that
   * is `pending` or `retrying` as `failed`, leased or not, in the same transaction: a worker's later
   * finishWebhookAttempt of one of them changes nothing.
   */
  updateWebhookEndpoint(accountId: string, id: string, changes: WebhookEndpointChanges): Promise<WebhookEndpointRecord | null>;
  /**
   * Makes `secret` the endpoint's secret and the one it had its `previous_secret`, valid until
   * `previousExpiresAt`, in one step: of concurrent rotations each keeps the secret the one before
   * it made. Null when the account has no such endpoint.
   */
  rotateWebhookSecret(accountId: string, id: string, secret: string, previousExpiresAt: string, updatedAt: string): Promise<WebhookEndpointRecord | null>;
  /** Deletes the account's endpoint with its deliveries; false when there was none. */
  deleteWebhookEndpoint(accountId: string, id: string): Promise<boolean>;
}

/** Both webhook ports: what an adapter's webhook module implements. */
export interface WebhookStorage extends OutboxPort, WebhookEndpointsPort {}
