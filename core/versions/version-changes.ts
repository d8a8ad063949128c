/**
 * The one path of a version's change (as core/changes/commit.ts is a listing's): read, decide from
 * what was read, write at the revision read with the change's events, start over from a fresh read
 * when another change came first; the events heard once committed.
 */
import { ApiError } from '../errors.js';
import { changeTime, commitWithEvents, retryWhileStale, stale, type ChangePorts } from '../changes/commit.js';
import { outboxEvent } from '../changes/outbox-events.js';
import type { WebhookEventType } from '../domain/webhook-events.js';
import type { AssetRecord, ListingsPort, OutboxEvent } from '../ports/storage.js';
import { versionsOf, type VersionChanges, type VersionRecord, type VersionsPort } from '../ports/versions.js';
import { assetView } from '../views.js';
import { versionView } from './version-records.js';
import { isOpenVersion } from '../domain/version-states.js';
import { reviewView } from '../domain/review-history.js';

/** What a version's change goes through: the listing's read, the versions capability, the clock, ids and who hears. */
export type VersionPorts = ChangePorts<Pick<ListingsPort, 'getAsset'>>;

/** The storage's versions capability, or 404 saying this marketplace has none. */
export function versionsPort(storage: object): VersionsPort {
  const port = versionsOf(storage);
  if (!port) throw new ApiError('NOT_FOUND', 'This marketplace’s storage keeps no versions of published listings (docs/adapters.md, "Versions").');
  return port;
}

export const versionNotFound = () => new ApiError('NOT_FOUND', 'No version with this id on this listing.');

/** A version's event: the listing as it is after the change, the version, and `version_id` and `version` in `data`. */
export function versionEvent(ports: Pick<VersionPorts, 'ids'>, type: WebhookEventType, asset: AssetRecord, version: VersionRecord, at: string): OutboxEvent {
  return outboxEvent(ports.ids, type, asset.owner_id, asset.id, at, {
    asset: assetView(asset),
    previous_status: asset.status,
    version_id: version.id,
    version: version.version,
    asset_version: versionView(version),
  });
}

const raced = 'The version was changed by another request at the same time; retry.';

/**
 * Changes a version on its one path: `read` loads it (and its listing), `decide` computes the
 * change from what was read (or refuses), `events` are written with it at the revision read.
 */
export async function changeVersion(
  ports: VersionPorts,
  read: () => Promise<{ asset: AssetRecord; version: VersionRecord }>,
  decide: (version: VersionRecord, asset: AssetRecord, at: string) => Omit<VersionChanges, 'updated_at'>,
  events: (after: VersionRecord, asset: AssetRecord, at: string) => OutboxEvent[] = () => [],
): Promise<{ asset: AssetRecord; version: VersionRecord; before: VersionRecord }> {
  const port = versionsPort(ports.storage);
  return retryWhileStale(async () => {
    const { asset, version } = await read();
    const at = changeTime(ports);
    const changes: VersionChanges = { ...decide(version, asset, at), updated_at: at };
    const after = { ...version, ...changes, revision: version.revision + 1 };
    const result = await commitWithEvents(ports, events(after, asset, at), (outbox) => port.updateVersion(version.id, version.revision, changes, outbox), (r) => r.outcome === 'updated');
    if (result.outcome === 'stale') return stale;
    if (result.outcome === 'missing') throw versionNotFound();
    return { asset, version: result.version, before: version };
  }, raced);
}

/** The open version of a published listing as its owner sees it on GET /assets/{id}; null when none. */
export async function pendingVersionOf(storage: object, assetId: string) {
  const port = versionsOf(storage);
  if (!port) return null;
  const open = (await port.listVersions(assetId)).find((v) => isOpenVersion(v.status));
  return open ? { id: open.id, version: open.version, status: open.status, review: reviewView(open.review) } : null;
}
