/**
 * The outbox's events (docs/webhooks.md, "The event"), built for the changes that make them and
 * written by the storage method that makes each one, in its transaction. `data` is the resource as
 * the API shows it: the same views the REST answers use.
 */
import type { AssetStatus } from '../domain/asset-states.js';
import type { WebhookEventType } from '../domain/webhook-events.js';
import { recordId, type IdsPort } from '../ports/ids.js';
import type { AccountsPort, AssetRecord, ImageRecord, OutboxEvent, TokenRecord } from '../ports/storage.js';
import { assetView, fileView, tokenView } from '../views.js';
import { commitWithEvents, type ChangePorts } from './commit.js';

/** An event of `type` about `subjectId` at `at`, with `data` as its JSON text. */
export function outboxEvent(ids: IdsPort, type: WebhookEventType, accountId: string, subjectId: string, at: string, data: Record<string, unknown>): OutboxEvent {
  return { id: recordId(ids), type, account_id: accountId, subject_id: subjectId, created_at: at, data: JSON.stringify(data) };
}

/** An event about a listing: `asset` as it is after the change (as it was, for a deletion), and the status before. */
export function assetEvent(ids: IdsPort, type: WebhookEventType, asset: AssetRecord, previousStatus: AssetStatus | null, at: string, extra: Record<string, unknown> = {}): OutboxEvent {
  return outboxEvent(ids, type, asset.owner_id, asset.id, at, { asset: assetView(asset), previous_status: previousStatus, ...extra });
}

/** asset.file_confirmed: the listing and its new file. */
export function fileConfirmedEvent(ids: IdsPort, asset: AssetRecord, previousStatus: AssetStatus, at: string): OutboxEvent {
  return assetEvent(ids, 'asset.file_confirmed', asset, previousStatus, at, { file: asset.file ? fileView(asset.file) : null });
}

/** asset.image_confirmed: the listing and the image (its position is the store's to give: GET the listing for it). */
export function imageConfirmedEvent(ids: IdsPort, asset: AssetRecord, image: Pick<ImageRecord, 'id' | 'public_url' | 'storage_path'>, at: string): OutboxEvent {
  return assetEvent(ids, 'asset.image_confirmed', asset, asset.status, at, { image: { id: image.id, image_id: image.id, public_url: image.public_url, storage_path: image.storage_path } });
}

/** asset.images_arranged: the listing and its gallery's new order (image ids, the first the primary). */
export function imagesArrangedEvent(ids: IdsPort, asset: AssetRecord, imageIds: readonly string[], at: string): OutboxEvent {
  return assetEvent(ids, 'asset.images_arranged', asset, asset.status, at, { image_ids: [...imageIds] });
}

/** token.revoked: the token as GET /tokens showed it, with its revocation time. */
export function tokenRevokedEvent(ids: IdsPort, token: TokenRecord, at: string): OutboxEvent {
  return outboxEvent(ids, 'token.revoked', token.account_id, token.id, at, { token: { ...tokenView(token), revoked_at: at } });
}

/**
 * Revokes the account's token with its token.revoked event, written only by the revocation that
 * revokes it (a token already revoked keeps its first revocation and gets no second event), and
 * heard in process once committed. The token as stored afterwards; null when the account has no
 * such token. REST, the admin surface and `marketkit token revoke` all revoke through this.
 */
export async function revokeTokenWithEvent(ports: Pick<ChangePorts<Pick<AccountsPort, 'getToken' | 'revokeToken'>>, 'storage' | 'ids' | 'events' | 'nudgeDeliveries' | 'tracing'>, accountId: string, tokenId: string, at: string): Promise<TokenRecord | null> {
  const current = await ports.storage.getToken(tokenId);
  const revoked = current && current.account_id === accountId && !current.revoked_at ? [tokenRevokedEvent(ports.ids, current, at)] : [];
  // Revoked by this call (the store wrote the event only then); one that lost a race at the same instant is heard twice.
  return commitWithEvents(ports, revoked, (events) => ports.storage.revokeToken(accountId, tokenId, at, events), (token) => token?.revoked_at === at);
}
