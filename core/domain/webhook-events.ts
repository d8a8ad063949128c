/**
 * The one table of webhook event types (docs/webhooks.md, "The event"): each type and what it says
 * happened. The moderation table (moderation/moderation.ts) names the moderators' events, which
 * are rows here.
 */
export const webhookEventTypes = {
  'asset.created': 'a listing was created',
  'asset.updated': 'a listing’s metadata, pricing, visibility, tags or schedule changed',
  'asset.deleted': 'a draft listing was deleted',
  'asset.file_confirmed': 'a new file was confirmed for a listing',
  'asset.image_confirmed': 'a new gallery image was confirmed for a listing',
  'asset.images_arranged': 'a listing’s gallery was put in a new order (its first image is the primary)',
  'asset.submitted': 'a listing was submitted for review (now pending)',
  'asset.scheduled': 'a listing was submitted with a future scheduled_publish_at (now scheduled)',
  'asset.released': 'a scheduled listing became due (now pending)',
  'asset.published': 'a moderator approved a listing (now published)',
  'asset.rejected': 'a moderator rejected a listing',
  'asset.changes_requested': 'a moderator sent a listing back for changes',
  'asset.archived': 'a moderator took a listing off the marketplace',
  'asset.version_submitted': 'a new version of a published listing was submitted for review',
  'asset.version_approved': 'a version went live: its file and changes are now the listing’s (at its approval, or at its release_at when it was scheduled)',
  'asset.version_scheduled': 'a moderator approved a version before its release_at: it goes live then, the listing unchanged until',
  'asset.version_changes_requested': 'a moderator sent a version back to its seller for changes',
  'asset.version_rejected': 'a moderator rejected a version (the live listing is unchanged)',
  'asset.version_withdrawn': 'a seller withdrew a version before it was decided',
  'asset.version_rolled_back': 'a moderator made the previous version live again',
  'token.revoked': 'a developer token was revoked',
  'webhook.test': 'a test event, sent by POST /webhooks/{id}/test',
} as const;

export type WebhookEventType = keyof typeof webhookEventTypes;

export const webhookEventTypeNames = Object.keys(webhookEventTypes) as WebhookEventType[];

/** What an endpoint subscribes to: `*` is every type. */
export const everyEventType = '*';

/** Whether an endpoint subscribed to `eventTypes` gets an event of `type`. */
export function subscribesTo(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.includes(everyEventType) || eventTypes.includes(type);
}
