import { allowed, type AssetAction } from '../domain/asset-states.js';
import { ApiError, isApiError } from '../errors.js';
import type { AssetChanges, AssetRecord, AssetReview, LeasePort, ListingsPort } from '../ports/storage.js';
import type { Asset } from '../schemas/asset.js';
import { assetView } from '../views.js';
import { changeListing, commitListingChange, stale, type ChangePorts, type Stale } from '../changes/commit.js';
import { assetEvent } from '../changes/outbox-events.js';
import { checkReason } from './reasons.js';
import { nextReview } from '../domain/review-history.js';

export { reasonMaxLength } from './reasons.js';

/**
 * The one table of the moderators' actions: the action (its transition is the row of the same name
 * in domain/asset-states.ts), the event it emits, what it writes to `review`, whether it takes the
 * reason the seller sees, and its name on the admin surface (`POST /api/admin/assets/{id}/<name>`,
 * `marketkit admin <name>`, the tool `admin_<name with _>` and the test control's `<name with _>`).
 * A new moderation action is one row here and one in the transition table.
 */
export const moderationActions = {
  approve: { event: 'asset.published', review: 'published', reason: false, name: 'approve', summary: 'Publish a pending listing' },
  reject: { event: 'asset.rejected', review: 'rejected', reason: true, name: 'reject', summary: 'Reject a pending listing with a reason the seller sees' },
  requestChanges: {
    event: 'asset.changes_requested',
    review: 'changes_requested',
    reason: true,
    name: 'request-changes',
    summary: 'Send a pending listing back to its seller with a reason',
  },
  archive: { event: 'asset.archived', review: null, reason: false, name: 'archive', summary: 'Take a published listing off the marketplace' },
} as const satisfies Partial<
  Record<AssetAction, { event: `asset.${string}`; review: AssetReview['status'] | null; reason: boolean; name: string; summary: string }>
>;

export type ModerationAction = keyof typeof moderationActions;

/** The event of the clock's release (scheduled -> pending); the seller's own actions emit theirs in their operations. */
const releaseEvent = 'asset.released';

/** How many due listings one releaseDue() call reads at a time. */
const releaseBatch = 100;
/** The storage lease under which one instance at a time releases on a timer (releaseDueUnderLease). */
export const releaseLease = 'release-due';
/**
 * How long the lease is held after each batch: past it, with no renewal (the holder died or hangs),
 * another instance takes over. serve releases every 30 s, so a live holder renews it long before.
 */
export const releaseLeaseMs = 2 * 60_000;

/** What releaseDueUnderLease did: whether this holder held the lease, and what it released. */
export interface LeasedRelease {
  ran: boolean;
  released: AssetRecord[];
}

/**
 * Applies `action` to the listing through the transition table, with the action's event, on the
 * one change path (core/changes/commit.ts): on a concurrent change it starts over from a fresh
 * read, so the table always judges the status that is actually stored.
 */
/** What moderation uses: a listing's reads and compare-and-set writes, and the release's job lease. */
export type ModerationPorts = ChangePorts<Pick<ListingsPort, 'getAsset' | 'updateAsset' | 'deleteAsset' | 'listDueScheduled'> & LeasePort>;

async function moderate(
  ports: ModerationPorts,
  assetId: string,
  action: ModerationAction,
  extra: (asset: AssetRecord, at: string) => Omit<AssetChanges, 'updated_at' | 'status'> = () => ({}),
): Promise<AssetRecord> {
  const read = async () => {
    const asset = await ports.storage.getAsset(assetId);
    if (!asset) throw new ApiError('NOT_FOUND', 'No listing with this id.');
    return asset;
  };
  const event = moderationActions[action].event;
  const { asset } = await changeListing(ports, read, (current, at) => ({ ...extra(current, at), status: allowed(current, action) }), (before, after, at) => [
    assetEvent(ports.ids, event, after, before.status, at),
  ]);
  return asset;
}

const review = (status: AssetReview['status'], reason: string | null) => (asset: AssetRecord, at: string) => ({
  review: nextReview(asset.review, { status, reason, reviewed_at: at }),
});

/** What the embedder's hook decides for a listing that just became pending. */
export type SubmitDecision = 'queue' | 'approve';

/**
 * What happens to a listing that becomes pending: it waits for a moderator ('queue'), is approved
 * at once ('auto-approve', for local development), or the embedder decides per listing.
 */
export type SubmitPolicy = 'queue' | 'auto-approve' | ((listing: Asset) => SubmitDecision | Promise<SubmitDecision>);

/**
 * The embedder's submit hook, made safe to call after the listing is stored: if it throws or
 * answers something else, the listing stays in the queue for a person, and onError hears of it.
 * The submit itself has happened either way, so its answer must not become an error.
 */
export function guardedPolicy(policy: SubmitPolicy, onError: (error: unknown, request: { method: string; path: string; requestId: string }) => void): SubmitPolicy {
  if (typeof policy !== 'function') return policy;
  return async (listing) => {
    try {
      const decision = await policy(listing);
      if (decision === 'approve' || decision === 'queue') return decision;
      throw new TypeError(`moderation.onSubmit answered ${JSON.stringify(decision)} for listing ${listing.id}; expected "queue" or "approve"`);
    } catch (error) {
      onError(error, { method: 'HOOK', path: 'moderation.onSubmit', requestId: listing.id });
      return 'queue';
    }
  };
}

export interface ModerationOptions {
  onSubmit: SubmitPolicy;
}

/**
 * The transitions the developer API does not offer, for the embedding marketplace: its moderators
 * (approve, reject, requestChanges, archive) and its clock (releaseDue). Every one goes through the
 * transition table: any other transition is a 409 INVALID_STATUS ApiError, a missing listing a 404.
 */
export function createModeration(ports: ModerationPorts, options: ModerationOptions = { onSubmit: 'queue' }) {
  /** Applies a moderator's action through the table above: its reason checked, its review written. */
  const decide = (action: ModerationAction, assetId: string, reason?: string): Promise<AssetRecord> => decideOn(ports, action, assetId, reason);
  return {
    decide,
    /** pending -> published. */
    approve: (assetId: string) => decide('approve', assetId),
    /** pending -> rejected, with the reason the seller sees. */
    reject: (assetId: string, reason: string) => decide('reject', assetId, reason),
    /** pending -> changes_requested, with the reason the seller sees. */
    requestChanges: (assetId: string, reason: string) => decide('requestChanges', assetId, reason),
    /** published -> archived. */
    archive: (assetId: string) => decide('archive', assetId),
    /**
     * scheduled -> pending for every listing whose scheduled_publish_at is at or before the clock's
     * now. Safe to run from several places at once: each listing is released exactly once (the
     * storage's compare-and-set decides). Returns the listings this call released.
     */
    releaseDue: (): Promise<AssetRecord[]> => releaseAll(ports, options, async () => true),
    /**
     * releaseDue() on one instance at a time, for a timer that every instance runs: it goes ahead
     * only when `holder` (the instance) holds the storage lease 'release-due' for `leaseMs`,
     * renewed before each batch, and stops when another holder has taken it; otherwise it returns
     * `{ ran: false }` at once. A release stays exactly once either way (compare-and-set); the
     * lease spares the other instances the work and the reads.
     */
    releaseDueUnderLease: (holder: string, leaseMs: number = releaseLeaseMs): Promise<LeasedRelease> => releaseUnderLease(ports, options, holder, leaseMs),
    /** Applies the onSubmit hook to a listing that just became pending; the listing as it is afterwards. */
    afterSubmit: (asset: AssetRecord): Promise<AssetRecord> => afterSubmit(ports, options, asset),
  };
}

async function decideOn(ports: ModerationPorts, action: ModerationAction, assetId: string, reason?: string): Promise<AssetRecord> {
  const spec = moderationActions[action];
  const text = spec.reason ? checkReason(reason) : null;
  return moderate(ports, assetId, action, spec.review ? review(spec.review, text) : undefined);
}

async function afterSubmit(ports: ModerationPorts, options: ModerationOptions, asset: AssetRecord): Promise<AssetRecord> {
  if (options.onSubmit === 'queue' || asset.status !== 'pending') return asset;
  const decision = options.onSubmit === 'auto-approve' ? 'approve' : await options.onSubmit(assetView(asset));
  if (decision !== 'approve') return asset;
  try {
    return await decideOn(ports, 'approve', asset.id);
  } catch (error) {
    // A moderator acted first: their decision stands.
    if (isApiError(error) && error.code === 'INVALID_STATUS') return asset;
    throw error;
  }
}

async function releaseUnderLease(ports: ModerationPorts, options: ModerationOptions, holder: string, leaseMs: number): Promise<LeasedRelease> {
  const hold = () => ports.storage.tryLease(releaseLease, holder, ports.clock.now(), leaseMs);
  if (!(await hold())) return { ran: false, released: [] };
  // The first batch runs under the lease just taken; each later one renews it first.
  let taken = true;
  const released = await releaseAll(ports, options, async () => {
    if (!taken) return hold();
    taken = false;
    return true;
  });
  return { ran: true, released };
}

/** Releases due listings batch by batch while `mayGoOn()` says so (a lease still held). */
async function releaseAll(ports: ModerationPorts, options: ModerationOptions, mayGoOn: () => Promise<boolean>): Promise<AssetRecord[]> {
  const released: AssetRecord[] = [];
  const seen = new Set<string>();
  for (;;) {
    if (!(await mayGoOn())) return released;
    const now = ports.clock.now();
    const due = (await ports.storage.listDueScheduled(new Date(now).toISOString(), releaseBatch)).filter((a) => !seen.has(a.id));
    if (due.length === 0) return released;
    for (const asset of due) {
      seen.add(asset.id);
      const done = await releaseOne(ports, options, asset, now);
      if (done) released.push(done);
    }
  }
}

/** Releases one due listing unless another release (or anything else) changed it first. */
async function releaseOne(ports: ModerationPorts, options: ModerationOptions, asset: AssetRecord, now: number): Promise<AssetRecord | null> {
  const changes: AssetChanges = { status: allowed(asset, 'release'), updated_at: new Date(now).toISOString() };
  // One attempt, no retry: stale means another release won, or the seller or a moderator changed it; a later run sees it afresh.
  const result = await commitListingChange(ports, asset, changes, (before, after, at) => [assetEvent(ports.ids, releaseEvent, after, before.status, at)]).catch((error: unknown): Stale => {
    if (isApiError(error) && error.code === 'NOT_FOUND') return stale;
    throw error;
  });
  if (result === stale) return null;
  if (options.onSubmit !== 'queue') return afterSubmit(ports, options, result.asset);
  return result.asset;
}

export type Moderation = ReturnType<typeof createModeration>;
