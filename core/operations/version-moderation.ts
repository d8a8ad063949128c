/**
 * The moderators' side of versions (docs/moderation.md, "Versions"): approve (the version's file,
 * version string and field changes become the listing's in one commit, the live one before it
 * kept as superseded for a rollback), request changes, reject, and roll back to the previous
 * version. Every transition goes through the versions' table (core/domain/version-states.ts).
 */
import { ApiError, invalidInput, isApiError } from '../errors.js';
import { changeTime, commitWithEvents, retryWhileStale, stale, type ChangePorts } from '../changes/commit.js';
import { recordId } from '../ports/ids.js';
import { applyChanges, type AssetRecord, type ListingsPort } from '../ports/storage.js';
import type { VersionChanges, VersionRecord, VersionReview, VersionSwap } from '../ports/versions.js';
import { versionAllowed } from '../domain/version-states.js';
import { galleryOf, liveFields, versionUploads } from '../versions/version-records.js';
import { goLiveChanges } from './version-rules.js';
import { changeVersion, versionEvent, versionNotFound, versionsPort } from '../versions/version-changes.js';
import { discardUploads, type UploadPorts } from './upload-lifecycle.js';
import { checkReason } from '../moderation/reasons.js';
import { nextReview } from '../domain/review-history.js';

/** What version moderation uses: the listing's reads, the versions capability, and the blobs of a file that will never go live. */
export type VersionModerationPorts = ChangePorts<Pick<ListingsPort, 'getAsset' | 'listImages'>> & UploadPorts;

const listingNotFound = () => new ApiError('NOT_FOUND', 'No listing with this id.');
const raced = 'The listing or its version was changed by another request at the same time; retry.';
/** How many scheduled versions one releaseDue() reads at a time. */
const releaseBatch = 100;

/** The listing as it went live before any version: written as a superseded version the first time another goes live, so a rollback can return to it. */
function firstPublication(ports: VersionModerationPorts, asset: AssetRecord, at: string): VersionRecord {
  return {
    id: recordId(ports.ids), asset_id: asset.id, owner_id: asset.owner_id, version: asset.version, release_notes: '',
    status: 'superseded', file: asset.file ? { ...asset.file } : null, changes: liveFields(asset), gallery: null, review: null, release_at: null,
    previous_id: null, created_at: asset.created_at, updated_at: at, submitted_at: null, decided_at: at, revision: 1,
  };
}

/** A moderator's release time: ahead of `now`, kept as an ISO time in UTC (what listDueVersions compares); else 400 naming release_at. */
function moderatorTime(value: string, now: number): string {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw invalidInput('release_at', 'is not a time: an ISO 8601 timestamp such as 2030-01-31T09:00:00Z');
  if (time <= now) throw invalidInput('release_at', `must be in the future (it is ${new Date(now).toISOString()} now); approve without it to make the version live at once`);
  return new Date(time).toISOString();
}

/**
 * Every scheduled version due at `now`, each through `releaseOne`, a batch at a time; a version whose
 * listing is no longer published (archived, deleted) stays scheduled, the others go on.
 */
async function releaseEveryDue(versions: () => ReturnType<typeof versionsPort>, now: number, releaseOne: (versionId: string) => Promise<VersionRecord | null>): Promise<VersionRecord[]> {
  const released: VersionRecord[] = [];
  const seen = new Set<string>();
  for (;;) {
    const due = (await versions().listDueVersions(new Date(now).toISOString(), releaseBatch + seen.size)).filter((v) => !seen.has(v.id));
    for (const version of due) {
      seen.add(version.id);
      const live = await releaseOne(version.id).catch((error: unknown) => {
        // Its listing is no longer published (archived, deleted): it stays scheduled, the others go on.
        if (isApiError(error) && (error.code === 'INVALID_STATUS' || error.code === 'NOT_FOUND')) return null;
        throw error;
      });
      if (live) released.push(live);
    }
    if (due.length === 0) return released;
  }
}

export function createVersionModeration(ports: VersionModerationPorts) {
  // Looked up at each call: a storage without the capability answers 404 when asked, not when the marketplace is made.
  const versions = () => versionsPort(ports.storage);

  const read = async (versionId: string) => {
    const version = await versions().getVersion(versionId);
    if (!version) throw versionNotFound();
    const asset = await ports.storage.getAsset(version.asset_id);
    if (!asset) throw listingNotFound();
    return { asset, version };
  };

  /**
   * One swap of the live version: `incoming` goes live (its file, version string and changes become
   * the listing's), the live one (`outgoing`) becomes superseded keeping the listing's fields as they
   * were, all in one commit with `type`'s event. Stale when anything moved since it was read.
   */
  async function swap(asset: AssetRecord, incoming: VersionRecord, incomingChanges: Omit<VersionChanges, 'updated_at'>, outgoing: VersionRecord | null, outgoingReview: VersionReview | null, type: 'asset.version_approved' | 'asset.version_rolled_back', at: string): Promise<VersionRecord | typeof stale> {
    if (asset.status !== 'published') throw new ApiError('INVALID_STATUS', `The listing is ${asset.status}: only a published listing's version goes live.`);
    // A new gallery takes the listing's images out of service: the outgoing version keeps them for a
    // rollback. Without one the images stay live, and the outgoing version holds none of them. The
    // swap is stale if the listing's images are no longer the ones read (its seller added one).
    const replaced = incoming.gallery ? await ports.storage.listImages(asset.id) : null;
    const superseded: VersionChanges = { status: 'superseded', changes: liveFields(asset), gallery: replaced, updated_at: at, ...(outgoingReview ? { review: outgoingReview } : {}) };
    const first = outgoing ? null : { ...firstPublication(ports, asset, at), gallery: replaced };
    const assetChanges = goLiveChanges(asset, incoming, at);
    const live: VersionChanges = { ...incomingChanges, updated_at: at, ...(type === 'asset.version_approved' ? { previous_id: outgoing?.id ?? first!.id } : {}) };
    const after = applyChanges(asset, assetChanges);
    const events = [versionEvent(ports, type, after, { ...incoming, ...live }, at)];
    const result = await commitWithEvents(ports, events, (outbox) => {
      const change: VersionSwap = {
        assetId: asset.id, expectedAssetRevision: asset.revision, assetChanges,
        ...(incoming.gallery ? { images: { gallery: galleryOf(asset.id, incoming.gallery), replacing: replaced!.map((image) => image.id) } } : {}),
        incoming: { id: incoming.id, expectedRevision: incoming.revision, changes: live },
        outgoing: outgoing ? { id: outgoing.id, expectedRevision: outgoing.revision, changes: superseded } : { record: first! },
        events: outbox,
      };
      return versions().swapVersion(change);
    }, (r) => r.outcome === 'swapped');
    if (result.outcome === 'stale') return stale;
    if (result.outcome === 'missing') throw versionNotFound();
    return result.incoming;
  }

  /** The version that is live now (approved), or null while the listing's first publication is. */
  const liveVersion = async (assetId: string) => (await versions().listVersions(assetId)).find((v) => v.status === 'approved') ?? null;

  /** A version's decision that leaves the listing as it is: changes requested, or rejected (its file removed). */
  async function decide(versionId: string, action: 'requestChanges' | 'reject', reason: string): Promise<VersionRecord> {
    const text = checkReason(reason);
    const type = action === 'reject' ? 'asset.version_rejected' : 'asset.version_changes_requested';
    const { version, before } = await changeVersion(ports, () => read(versionId), (latest, _asset, at) => ({
      status: versionAllowed(latest, action),
      review: nextReview(latest.review, { decision: action === 'reject' ? 'rejected' : 'changes_requested', reason: text, reviewed_at: at }),
      // A rejected version's file and gallery will never go live: the version lets go of them, and they are removed below.
      ...(action === 'reject' ? { decided_at: at, file: null, gallery: null } : {}),
    }), (after, asset, at) => [versionEvent(ports, type, asset, after, at)]);
    // Removed now; if this fails, no record points at the uploads any more and the upload sweep removes them.
    if (action === 'reject') await discardUploads(ports, versionUploads(before)).catch(() => {});
    return version;
  }

  /**
   * A version approved before its release_at: scheduled, the listing unchanged, until the clock
   * releases it (releaseDue). `releaseAt`, a moderator's time, replaces the seller's in the same
   * write (one compare-and-set at the version's revision) as the status.
   */
  const schedule = async (versionId: string, releaseAt?: string) =>
    (await changeVersion(ports, () => read(versionId), (latest, _asset, at) => ({
      status: versionAllowed(latest, 'schedule'),
      review: nextReview(latest.review, { decision: 'approved', reason: null, reviewed_at: at }),
      decided_at: at,
      ...(releaseAt !== undefined ? { release_at: releaseAt } : {}),
    }), (after, asset, at) => [versionEvent(ports, 'asset.version_scheduled', asset, after, at)])).version;

  /** A scheduled version whose time came goes live (the same swap as an approval's), or null when it is no longer scheduled. */
  const releaseOne = (versionId: string): Promise<VersionRecord | null> =>
    retryWhileStale(async () => {
      const { asset, version } = await read(versionId);
      if (version.status !== 'scheduled') return null;
      const at = changeTime(ports);
      return swap(asset, version, { status: versionAllowed(version, 'release') }, await liveVersion(asset.id), null, 'asset.version_approved', at);
    }, raced);

  return {
    /**
     * pending -> approved: the version goes live in one commit; the one live before is superseded
     * (kept for a rollback). A version whose release_at is still ahead is scheduled instead, and
     * goes live at that time (releaseDue). With `releaseAt` (a moderator's time, in the future, else
     * 400 INVALID_INPUT naming release_at) the version is scheduled for that time, which replaces
     * the seller's.
     */
    approve: async (versionId: string, options: { releaseAt?: string } = {}): Promise<VersionRecord> => {
      if (options.releaseAt !== undefined) {
        const releaseAt = moderatorTime(options.releaseAt, ports.clock.now());
        return schedule(versionId, releaseAt);
      }
      return retryWhileStale(async () => {
        const { asset, version } = await read(versionId);
        if (version.release_at !== null && Date.parse(version.release_at) > ports.clock.now() && version.status === 'pending') return schedule(versionId);
        const status = versionAllowed(version, 'approve');
        const at = changeTime(ports);
        const review: VersionReview = nextReview(version.review, { decision: 'approved', reason: null, reviewed_at: at });
        return swap(asset, version, { status, review, decided_at: at }, await liveVersion(asset.id), null, 'asset.version_approved', at);
      }, raced);
    },
    /**
     * Every scheduled version whose release_at has come goes live, each in one swap with its
     * `asset.version_approved`; the versions released. Safe on several instances at once: a
     * version goes live once (the swap's compare-and-set), the others find it no longer scheduled.
     */
    releaseDue: (): Promise<VersionRecord[]> => releaseEveryDue(versions, ports.clock.now(), releaseOne),
    /** pending -> changes_requested, with the reason the seller reads. */
    requestChanges: (versionId: string, reason: string) => decide(versionId, 'requestChanges', reason),
    /** pending -> rejected, with the reason the seller reads; the live listing is unchanged. */
    reject: (versionId: string, reason: string) => decide(versionId, 'reject', reason),
    /**
     * The live version's predecessor made live again (its file, version string and the listing's
     * fields as they were while it was live); the live one becomes superseded, its review saying it
     * was rolled back. 409 INVALID_STATUS when there is nothing to roll back to.
     */
    rollback: (assetId: string, reason?: string): Promise<VersionRecord> =>
      retryWhileStale(async () => {
        const asset = await ports.storage.getAsset(assetId);
        if (!asset) throw listingNotFound();
        const live = await liveVersion(asset.id);
        const previous = live?.previous_id ? await versions().getVersion(live.previous_id) : null;
        if (!live || !previous) throw new ApiError('INVALID_STATUS', 'This listing has no earlier version to roll back to: none of its versions has gone live yet.');
        const status = versionAllowed(previous, 'rollback');
        if (previous.file === null) throw new ApiError('INVALID_STATUS', `Version ${previous.version} has no file any more: it was removed after the retention of superseded versions (supersededRetentionSeconds).`);
        const at = changeTime(ports);
        const rolledBack: VersionReview = nextReview(live.review, { decision: 'rolled_back', reason: reason === undefined ? null : checkReason(reason), reviewed_at: at });
        return swap(asset, previous, { status }, live, rolledBack, 'asset.version_rolled_back', at);
      }, raced),
    /** The versions waiting for review, oldest submission first (the admin queue holds them beside listings: core/admin/queue.ts). */
    queue: async (limit: number) => (await versions().listVersionsInStatus('pending', limit)).items,
  };
}

export type VersionModeration = ReturnType<typeof createVersionModeration>;
