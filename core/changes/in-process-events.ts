import type { AssetStatus } from '../domain/asset-states.js';
import type { WebhookEventType } from '../domain/webhook-events.js';
import type { AssetEvent, MarketplaceEvent } from '../ports/events.js';
import type { OutboxEvent } from '../ports/storage.js';

const isAssetType = (type: WebhookEventType): type is AssetEvent['type'] => type.startsWith('asset.');

/**
 * The in-process event of an outbox event (docs/testing.md, "Events"): its id, type, time, account,
 * subject and data as the webhook delivers them, and for a listing's event the status before
 * (`previous_status`) and after (the listing's; null once it is deleted). Derived rather than built
 * beside it, so that the two channels cannot drift apart.
 */
export function inProcessEvent(event: OutboxEvent): MarketplaceEvent {
  const data = JSON.parse(event.data) as Record<string, unknown>;
  const type = event.type as WebhookEventType;
  const fields = { id: event.id, at: event.created_at, account_id: event.account_id, subject_id: event.subject_id, data };
  if (!isAssetType(type)) return { type, ...fields };
  const to = type === 'asset.deleted' ? null : ((data.asset as { status: AssetStatus }).status ?? null);
  return { type, asset_id: event.subject_id, owner_id: event.account_id, from: (data.previous_status as AssetStatus | null) ?? null, to, ...fields };
}
