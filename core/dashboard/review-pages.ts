/**
 * The moderators' routes (docs/dashboard.md, "Moderators"): the queue, a listing's and a version's
 * review, and the decisions, each an admin action run through staff.ts (the same action as the admin
 * API and `marketkit admin`, then the audit log). A moderator, or an operator, only.
 */
import { ApiError } from '../errors.js';
import type { VersionReviewReport } from '../moderation/version-review.js';
import type { AccountRecord } from '../ports/records.js';
import { assetView, imageView } from '../views.js';
import { page, redirect } from './respond.js';
import type { DashboardRoute, SignedInRequest } from './routes.js';
import { listingReviewPage, priceOf, queuePage, versionReviewPage, type QueueRow } from './review-views.js';
import { staffAct, staffRead } from './staff.js';
import type { Asset } from '../schemas/asset.js';
import type { VersionView } from '../schemas/version.js';

type QueueItem = (Asset & { kind: 'listing' }) | (VersionView & { kind: 'version' });

/** The usernames of a page's sellers, each read once. */
function sellers(request: SignedInRequest) {
  const known = new Map<string, Promise<AccountRecord | null>>();
  return async (accountId: string) => {
    if (!known.has(accountId)) known.set(accountId, request.parts.ports.storage.getAccount(accountId));
    return (await known.get(accountId))?.username ?? 'a removed account';
  };
}

async function rowOf(request: SignedInRequest, item: QueueItem, sellerOf: (id: string) => Promise<string>): Promise<QueueRow> {
  const { storage } = request.parts.ports;
  const { base } = request.place;
  const asset = await storage.getAsset(item.kind === 'listing' ? item.id : item.asset_id);
  const images = asset ? await storage.listImages(asset.id) : [];
  const primary = images.find((image) => image.is_primary) ?? images[0];
  const common = { seller: asset ? await sellerOf(asset.owner_id) : 'a removed listing', price: asset ? priceOf(asset) : '—' };
  if (item.kind === 'listing') {
    return { kind: 'listing', id: item.id, title: item.title, submitted: item.updated_at, file: asset?.file ? { size: asset.file.file_size, sha256: asset.file.sha256 ?? null } : null, image: primary?.public_url ?? null, href: `${base}/review/listings/${item.id}`, ...common };
  }
  const image = item.gallery?.[0]?.public_url ?? primary?.public_url ?? null;
  return { kind: 'version', id: item.id, title: `${asset?.title ?? 'A listing'} ${item.version}`, submitted: item.submitted_at ?? item.created_at, file: item.file ? { size: item.file.file_size, sha256: item.file.sha256 ?? null } : null, image, href: `${base}/review/versions/${item.id}`, ...common };
}

const listingDecisions: Record<string, { action: string; reason: 'required' | 'optional' | 'none' }> = {
  approve: { action: 'approve', reason: 'none' },
  'request-changes': { action: 'request-changes', reason: 'required' },
  reject: { action: 'reject', reason: 'required' },
  archive: { action: 'archive', reason: 'none' },
  rollback: { action: 'rollback', reason: 'optional' },
};
const versionDecisions: Record<string, { action: string; reason: 'required' | 'none' }> = {
  approve: { action: 'approve-version', reason: 'none' },
  'request-changes': { action: 'request-version-changes', reason: 'required' },
  reject: { action: 'reject-version', reason: 'required' },
};

/**
 * The "Approve, live at" form's time: a datetime-local has no zone, and the page says it is UTC, so
 * `2030-01-31T09:00` is sent as `2030-01-31T09:00:00Z`. Anything else goes as it came, for the
 * action to judge (its schema and the moderation's rule refuse it, naming release_at).
 */
export function utcOfLocal(value: string): string {
  const local = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2}(?:\.\d{1,3})?)?$/.exec(value.trim());
  return local ? `${local[1]}${local[2] ?? ':00'}Z` : value;
}

/** A decision's input: the reason the form carried (the action's schema judges it: a required one left empty is refused, the field named). */
const inputOf = (form: URLSearchParams, reason: 'required' | 'optional' | 'none') => {
  if (reason === 'none') return undefined;
  const given = form.get('reason')?.trim() ?? '';
  return reason === 'optional' && given === '' ? {} : { reason: given };
};

export const reviewRoutes: DashboardRoute[] = [
  {
    method: 'GET',
    path: '/review',
    role: 'moderator',
    async handle(request) {
      const kind = request.query.get('kind') ?? '';
      const cursor = request.query.get('cursor');
      const queue = await staffRead<{ items: QueueItem[]; total: number; next_cursor: string | null }>(request, 'queue', {}, { limit: 25, ...(kind ? { kind } : {}), ...(cursor ? { cursor } : {}) });
      const sellerOf = sellers(request);
      const rows = await Promise.all(queue.items.map((item) => rowOf(request, item, sellerOf)));
      return page(200, queuePage(request.place, rows, queue.total, kind, queue.next_cursor));
    },
  },
  {
    method: 'GET',
    path: '/review/listings/{id}',
    role: 'moderator',
    async handle(request) {
      const { storage } = request.parts.ports;
      const asset = await storage.getAsset(request.params.id!);
      if (!asset) throw new ApiError('NOT_FOUND', 'No listing with this id.');
      const images = (await storage.listImages(asset.id)).sort((a, b) => Number(b.is_primary) - Number(a.is_primary) || a.position - b.position);
      return page(200, listingReviewPage(request.place, assetView(asset), images.map(imageView), asset.file, await sellers(request)(asset.owner_id)));
    },
  },
  {
    method: 'POST',
    path: '/review/listings/{id}/{decision}',
    role: 'moderator',
    async handle(request) {
      const { id, decision } = request.params as { id: string; decision: string };
      const chosen = listingDecisions[decision];
      if (!chosen) throw new ApiError('NOT_FOUND', 'No such decision.');
      await staffAct(request, chosen.action, { id }, inputOf(request.form, chosen.reason), `listing ${id}`);
      return redirect(`${request.place.base}/review/listings/${id}`);
    },
  },
  {
    method: 'GET',
    path: '/review/versions/{id}',
    role: 'moderator',
    async handle(request) {
      const report = await staffRead<VersionReviewReport>(request, 'version-review', { id: request.params.id! });
      const asset = await request.parts.ports.storage.getAsset(report.listing.id);
      const now = new Date(request.parts.ports.clock.now()).toISOString();
      return page(200, versionReviewPage(request.place, report, asset ? await sellers(request)(asset.owner_id) : 'a removed listing', now));
    },
  },
  {
    method: 'POST',
    path: '/review/versions/{id}/{decision}',
    role: 'moderator',
    async handle(request) {
      const { id, decision } = request.params as { id: string; decision: string };
      const chosen = versionDecisions[decision];
      if (!chosen) throw new ApiError('NOT_FOUND', 'No such decision.');
      // "Approve, live at": the same approve-version action with the moderator's time, which the audit entry notes.
      const releaseAt = decision === 'approve' && request.form.has('release_at') ? utcOfLocal(request.form.get('release_at')!) : undefined;
      const input = releaseAt === undefined ? inputOf(request.form, chosen.reason) : { release_at: releaseAt };
      await staffAct(request, chosen.action, { id }, input, `version ${id}`, releaseAt === undefined ? undefined : `live at ${releaseAt}`);
      return redirect(`${request.place.base}/review/versions/${id}`);
    },
  },
];
