/**
 * The seller's listings (docs/dashboard.md, "Listings"): the list by status, a new draft, a
 * listing's page (edit, submit for review, delete a draft, the gallery's order) and a published listing's versions (new
 * version, submit, withdraw). Every read and every change is the operation REST and MCP run
 * (listAssets, countAssets, getAsset, createAsset, updateAsset, submitAsset, deleteAsset, arrangeImages,
 * listAssetVersions, createAssetVersion, submitAssetVersion, withdrawAssetVersion), through
 * runOperation with the session's context: no rule is written here a second time. A refusal of a
 * form is shown above the form again, with what was typed; a missing listing (or another seller's)
 * is the error page's 404.
 */
import { assetStatuses, type AssetStatus } from '../domain/asset-states.js';
import { isApiError, statusOf } from '../errors.js';
import { countAssets, createAsset, deleteAsset, getAsset, listAssets, updateAsset } from '../operations/assets.js';
import { schedulingFeature } from '../operations/asset-rules.js';
import { listCategories } from '../operations/categories.js';
import type { AnyOperation, OperationContext } from '../operations/context.js';
import { submitAsset } from '../operations/submit.js';
import { createAssetVersion, listAssetVersions, submitAssetVersion, withdrawAssetVersion } from '../operations/versions.js';
import { runOperation } from '../pipeline/run-operation.js';
import type { CoreResponse } from '../pipeline/request.js';
import { versionsOf } from '../ports/versions.js';
import type { AssetDetail, Category } from '../schemas/asset.js';
import type { VersionView } from '../schemas/version.js';
import { doneNotes, imageMoves, listingPage, type DoneNote, type ImageMove, type ListingView } from './listing-detail-views.js';
import { arrangeImages } from '../operations/image-order.js';
import { createInput, emptyFields, fieldsFrom, fieldsOf, updateInput, type ListingFields } from './listing-forms.js';
import { listingsPage, newListingPage, type ListingCounts, type ListingsList, type ListPlace } from './listing-views.js';
import { page, redirect } from './respond.js';
import type { DashboardRoute, SignedInRequest } from './routes.js';

/** Listings on a page of the list. */
const pageSize = 20;
/** The most pages before this one the Previous link remembers (the cursors ride in the link); Newest is always there. */
const trailMax = 50;

async function run<T>(ctx: OperationContext, operation: AnyOperation, input: Record<string, unknown>): Promise<T> {
  return (await runOperation(ctx, operation, input)).value as T;
}

/** Whether the seller's plan lets a listing be scheduled: the form offers the field only then (the operation decides all the same). */
const schedules = (ctx: OperationContext) => ctx.caller.account.plan_features.includes(schedulingFeature);

const categoriesOf = async (ctx: OperationContext) => (await run<{ data: Category[] }>(ctx, listCategories, {})).data;

/**
 * Where the list is, from its query: an unknown status is the All tab; an empty search box is no
 * search (what listAssets makes of a q, the operation says); the trail keeps cursor-shaped entries only.
 */
function listPlaceOf(query: URLSearchParams): ListPlace {
  const status = query.get('status');
  const q = query.get('q');
  const back = query.has('back') ? query.get('back')!.split('.').filter((cursor) => /^[A-Za-z0-9_-]*$/.test(cursor)).slice(-trailMax) : [];
  return { status: (assetStatuses as readonly string[]).includes(status ?? '') ? (status as AssetStatus) : null, q: q?.trim() ? q : null, cursor: query.get('cursor') || null, back };
}

/** The page of the list where `at` is; a search the operation refuses (a q too long, say) is the page with its message and no listing. */
async function listAt(ctx: OperationContext, at: ListPlace): Promise<{ list: ListingsList; status: number; message: string | null }> {
  try {
    const input = { limit: pageSize, ...(at.status ? { status: at.status } : {}), ...(at.q !== null ? { q: at.q } : {}), ...(at.cursor ? { cursor: at.cursor } : {}) };
    return { list: await run<ListingsList>(ctx, listAssets, input), status: 200, message: null };
  } catch (error) {
    // Not dropped: a refused search is shown on the page; anything else goes on to the error page.
    if (!isApiError(error) || error.code !== 'INVALID_INPUT' || at.q === null) throw error;
    return { list: { data: [], pagination: { total: 0, has_more: false, next_cursor: null } }, status: statusOf(error.code), message: error.message };
  }
}

/** Everything the listing's page shows, read through the operations; `fields` and `message` when a form is shown again. */
async function listingView(ctx: OperationContext, id: string, shown: { fields?: ListingFields; message?: string; note?: DoneNote | null } = {}): Promise<ListingView> {
  const asset = await run<AssetDetail>(ctx, getAsset, { asset_id: id });
  const hasVersions = (asset.status === 'published' || asset.status === 'archived') && versionsOf(ctx.ports.storage) !== undefined;
  const [categories, versions] = await Promise.all([categoriesOf(ctx), hasVersions ? run<{ items: VersionView[] }>(ctx, listAssetVersions, { asset_id: id }) : null]);
  return { asset, categories, versions: versions?.items ?? null, fields: shown.fields ?? fieldsOf(asset, schedules(ctx)), note: shown.note ?? null, message: shown.message ?? null, siteOrigin: new URL(ctx.siteUrl).origin };
}

/**
 * Runs an action on a listing and goes back to its page saying so (POST-redirect-GET); a refusal
 * is the listing's page again with the operation's message above it. A missing listing is not
 * refused here but thrown on: the error page's 404, never another seller's data.
 */
async function actOn(request: SignedInRequest, note: DoneNote, act: () => Promise<unknown>, fields?: ListingFields): Promise<CoreResponse> {
  const { ctx, place, params } = request;
  try {
    await act();
  } catch (error) {
    // Not dropped: a refusal is shown on the page; anything else (and a 404) goes on to the error page.
    if (!isApiError(error) || error.code === 'NOT_FOUND') throw error;
    return page(statusOf(error.code), listingPage(place, await listingView(ctx, params.id!, { message: error.message, ...(fields ? { fields } : {}) })));
  }
  return redirect(`${place.base}/listings/${encodeURIComponent(params.id!)}?done=${note}`);
}

/**
 * The gallery's order after moving one image: to the front (primary), one place earlier or later.
 * An id not in the gallery is put first, for arrangeImages to refuse naming it (its rule, not one here).
 */
function moved(ids: readonly string[], imageId: string, move: ImageMove): string[] {
  const at = ids.indexOf(imageId);
  if (at < 0) return [imageId, ...ids];
  const to = move === 'primary' ? 0 : move === 'earlier' ? Math.max(0, at - 1) : Math.min(ids.length - 1, at + 1);
  const order = ids.filter((id) => id !== imageId);
  order.splice(to, 0, imageId);
  return order;
}

/** Make primary, Move earlier, Move later: the gallery as it is read, one image moved, through arrangeImages. */
const imageMoveRoutes: DashboardRoute[] = (Object.keys(imageMoves) as ImageMove[]).map((move) => ({
  method: 'POST',
  path: `/listings/{id}/images/{image}/${move}`,
  role: 'account',
  handle: (request: SignedInRequest) =>
    actOn(request, 'arranged', async () => {
      const { ctx, params } = request;
      const { images } = await run<AssetDetail>(ctx, getAsset, { asset_id: params.id! });
      await run(ctx, arrangeImages, { asset_id: params.id!, image_ids: moved(images.map((image) => image.id), params.image!, move) });
    }),
}));

export const listingRoutes: DashboardRoute[] = [
  {
    method: 'GET',
    path: '/listings',
    role: 'account',
    async handle({ ctx, place, query }) {
      const at = listPlaceOf(query);
      const [counts, { list, status, message }] = await Promise.all([run<ListingCounts>(ctx, countAssets, {}), listAt(ctx, at)]);
      return page(status, listingsPage(place, counts, list, at, message));
    },
  },
  {
    method: 'GET',
    path: '/listings/new',
    role: 'account',
    async handle({ ctx, place }) {
      return page(200, newListingPage(place, { ...emptyFields, scheduled_publish_at: schedules(ctx) ? '' : null }, await categoriesOf(ctx)));
    },
  },
  {
    method: 'POST',
    path: '/listings',
    role: 'account',
    async handle({ ctx, place, form }) {
      const fields = fieldsFrom(form, schedules(ctx));
      let created: { id: string };
      try {
        created = await run<{ id: string }>(ctx, createAsset, createInput(fields));
      } catch (error) {
        // Not dropped: a refusal is the form again, with its message and what was typed.
        if (!isApiError(error)) throw error;
        return page(statusOf(error.code), newListingPage(place, fields, await categoriesOf(ctx), error.message));
      }
      return redirect(`${place.base}/listings/${created.id}?done=created`);
    },
  },
  {
    method: 'GET',
    path: '/listings/{id}',
    role: 'account',
    async handle({ ctx, place, params, query }) {
      const done = query.get('done');
      const note = done !== null && Object.hasOwn(doneNotes, done) ? (done as DoneNote) : null;
      return page(200, listingPage(place, await listingView(ctx, params.id!, { note })));
    },
  },
  {
    method: 'POST',
    path: '/listings/{id}',
    role: 'account',
    async handle(request) {
      const { ctx, params, form, place } = request;
      const current = await run<AssetDetail>(ctx, getAsset, { asset_id: params.id! });
      const fields = fieldsFrom(form, schedules(ctx));
      let changed = true;
      const response = await actOn(request, 'saved', async () => {
        const changes = updateInput(fields, current);
        changed = Object.keys(changes).length > 0;
        if (changed) await run(ctx, updateAsset, { asset_id: current.id, ...changes });
      }, fields);
      return changed ? response : redirect(`${place.base}/listings/${current.id}?done=unchanged`);
    },
  },
  {
    method: 'POST',
    path: '/listings/{id}/submit',
    role: 'account',
    handle: (request) => actOn(request, 'submitted', () => run(request.ctx, submitAsset, { asset_id: request.params.id! })),
  },
  {
    method: 'POST',
    path: '/listings/{id}/delete',
    role: 'account',
    async handle({ ctx, place, params }) {
      await run(ctx, deleteAsset, { asset_id: params.id! });
      return redirect(`${place.base}/listings`);
    },
  },
  {
    method: 'POST',
    path: '/listings/{id}/versions',
    role: 'account',
    handle(request) {
      const notes = (request.form.get('release_notes') ?? '').replace(/\r\n?/g, '\n');
      const input = { asset_id: request.params.id!, version: (request.form.get('version') ?? '').trim(), ...(notes ? { release_notes: notes } : {}) };
      return actOn(request, 'version', () => run(request.ctx, createAssetVersion, input));
    },
  },
  {
    method: 'POST',
    path: '/listings/{id}/versions/{version}/submit',
    role: 'account',
    handle: (request) => actOn(request, 'version_submitted', () => run(request.ctx, submitAssetVersion, { asset_id: request.params.id!, version_id: request.params.version! })),
  },
  {
    method: 'POST',
    path: '/listings/{id}/versions/{version}/withdraw',
    role: 'account',
    handle: (request) => actOn(request, 'withdrawn', () => run(request.ctx, withdrawAssetVersion, { asset_id: request.params.id!, version_id: request.params.version! })),
  },
  ...imageMoveRoutes,
];
