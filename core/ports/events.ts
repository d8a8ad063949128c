import type { AssetStatus } from '../domain/asset-states.js';
import type { WebhookEventType } from '../domain/webhook-events.js';

/**
 * What every in-process event carries: the webhook event's own fields (docs/webhooks.md, "The
 * event"), because it is derived from the outbox event the change committed (core/changes/).
 */
interface EventFields {
  /** The webhook event's id: the delivered `id` and `webhook-id`. */
  id: string;
  /** When the change happened: the delivered `timestamp`. */
  at: string;
  /** The account whose endpoints get the event (a listing's owner, a token's account). */
  account_id: string;
  /** What it is about: the listing's, the token's or the endpoint's id. */
  subject_id: string;
  /** The delivered `data` object, parsed (shared by every listener: read it, do not change it). */
  data: Record<string, unknown>;
}

/** An event about a listing (`asset.*`), with the fields listeners have had from the first version. */
export interface AssetEvent extends EventFields {
  type: Extract<WebhookEventType, `asset.${string}`>;
  asset_id: string;
  owner_id: string;
  /** The status before the change; null for a creation. */
  from: AssetStatus | null;
  /** The status after it; null for a deletion. */
  to: AssetStatus | null;
}

/** An event about an account's token or webhook endpoint (`token.revoked`, `webhook.test`). */
export interface AccountEvent extends EventFields {
  type: Exclude<WebhookEventType, `asset.${string}`>;
  asset_id?: never;
  owner_id?: never;
  from?: never;
  to?: never;
}

/** Every event EventsPort hears: one per webhook event, of every type. */
export type MarketplaceEvent = AssetEvent | AccountEvent;

/**
 * Hears every change's events once the change has committed (the same events, ids and timestamps
 * webhooks deliver). Must not throw; a slow subscriber slows the request.
 */
export interface EventsPort {
  emit(event: MarketplaceEvent): void;
}

export const noEvents: EventsPort = { emit: () => {} };
