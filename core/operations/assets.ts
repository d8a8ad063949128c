import type { Static } from '@sinclair/typebox';
import { Strict } from '../schemas/common.js';
import { ApiError, invalidInput } from '../errors.js';
import type { AssetRecord } from '../ports/storage.js';
import { recordId } from '../ports/ids.js';
import { foldAscii } from '../ports/listings.js';
import { assetStatuses, type AssetStatus } from '../domain/asset-states.js';
import {
  AssetCountsSchema,
  AssetCreateBody,
  AssetDetailSchema,
  ForAsset,
  AssetListQuery,
  AssetListSchema,
  AssetSchema,
  AssetUpdateBody,
  DeleteAssetResultSchema,
  limits,
} from '../schemas/asset.js';
import { allowed } from '../domain/asset-states.js';
import {
  changeOwnedAsset,
  isPaid,
  loadOwnedAsset,
  loadOwnedAssetWithImages,
  normalizeTags,
  normalizeTitle,
  requireActiveSeller,
  requireCategory,
  requireUnrestricted,
  resolvePricing,
  resolveSchedule,
} from './asset-rules.js';
import { readPage } from './list-cursor.js';
import { versionsOf } from '../ports/versions.js';
import { pendingVersionOf } from '../versions/version-changes.js';
import { defineOperation, nowIso, type OperationContext } from './context.js';
import { addsOnce, reads, replaces } from './declaration.js';
import { discardUploads } from './upload-lifecycle.js';
import { assetDetailView, assetView } from '../views.js';
import { commitWithEvents, deleteListing } from '../changes/commit.js';
import { assetEvent } from '../changes/outbox-events.js';

export const listAssets = defineOperation({
  name: 'listAssets',
  rest: { method: 'GET', path: '/assets', query: true, tag: 'Assets' },
  tool: {
    name: 'list_my_assets',
    title: 'List my listings',
    description:
      'Your listings, newest first, a page at a time (limit 1 to 100, default 50). pagination.has_more says whether another page ' +
      'follows; pass pagination.next_cursor as cursor for it (or page by offset from 0, not both). ' +
      'Filter with status: draft, pending, scheduled, published, rejected, changes_requested or archived. ' +
      'Search with q: the listings whose title or slug contains it (1 to 100 characters; A-Z without case, other characters exactly); ' +
      'pagination.total then counts the matches, and a next_cursor is good with the same q only.',
    annotations: reads,
  },
  readsStorageOnly: true,
  summary: "List the caller's listings, newest first",
  scope: 'assets:read',
  errors: [],
  requestClass: 'read',
  input: AssetListQuery,
  output: AssetListSchema,
  async run(ctx, input) {
    const ownerId = ctx.caller.account.id;
    const status = input.status ? { status: input.status } : {};
    const search = input.q === undefined ? undefined : searchText(input.q);
    const { items, ...pagination } = await readPage(
      'assets',
      input,
      limits.pageDefault,
      (limit, offset, after) => ctx.ports.storage.listAssets({ ownerId, ...status, limit, offset, ...(after ? { after } : {}), ...(search ? { search } : {}) }),
      (asset) => asset.created_at,
      // Bound to the search as it compares (folded): "Forest" and "forest" page alike.
      search === undefined ? undefined : foldAscii(search),
    );
    return { data: items.map(assetView), pagination };
  },
});

/** listAssets' q trimmed, or INVALID_INPUT naming q when nothing is left (a blank search is a mistake, not "everything"). */
function searchText(q: string): string {
  const trimmed = q.trim();
  if (trimmed.length === 0) throw invalidInput('q', `must be 1 to ${limits.searchMax} characters after trimming, not blank`);
  return trimmed;
}

export const getAsset = defineOperation({
  name: 'getAsset',
  rest: { method: 'GET', path: '/assets/:id', params: { id: 'asset_id' }, tag: 'Assets' },
  tool: {
    name: 'get_asset',
    title: 'Get a listing',
    description: 'One of your listings by asset_id, with its images, its category and its confirmed file (null until confirm_asset_file).',
    annotations: reads,
  },
  readsStorageOnly: true,
  summary: 'Get one listing with its images, category and file',
  scope: 'assets:read',
  errors: ['NOT_FOUND'],
  requestClass: 'read',
  input: ForAsset(),
  output: AssetDetailSchema,
  async run(ctx, input) {
    const { asset, images } = await loadOwnedAssetWithImages(ctx, input.asset_id);
    const category = asset.category_id ? await ctx.ports.storage.getCategory(asset.category_id) : null;
    const detail = assetDetailView(asset, images, category);
    // Only a published listing has versions; its owner (the only caller here) sees the open one.
    if (asset.status === 'published' && versionsOf(ctx.ports.storage)) detail.pending_version = await pendingVersionOf(ctx.ports.storage, asset.id);
    return detail;
  },
});

export const countAssets = defineOperation({
  name: 'countAssets',
  rest: { method: 'GET', path: '/assets/counts', tag: 'Assets' },
  tool: {
    name: 'count_my_assets',
    title: 'Count my listings by status',
    description:
      'How many listings you have in each status (draft, pending, scheduled, published, rejected, changes_requested, ' +
      'archived) and in all. Use it to see what waits for review or needs changes before paging through list_my_assets with status.',
    annotations: reads,
  },
  readsStorageOnly: true,
  summary: "Count the caller's listings in each status",
  scope: 'assets:read',
  errors: [],
  requestClass: 'read',
  input: Strict({}),
  output: AssetCountsSchema,
  async run(ctx) {
    // The storage's page total per status: one small query each, no listing read in full.
    const ownerId = ctx.caller.account.id;
    const totals = await Promise.all(assetStatuses.map((status) => ctx.ports.storage.listAssets({ ownerId, status, limit: 1, offset: 0 })));
    const by_status = Object.fromEntries(assetStatuses.map((status, i) => [status, totals[i]!.total])) as Record<AssetStatus, number>;
    return { total: totals.reduce((sum, page) => sum + page.total, 0), by_status };
  },
});

/**
 * A validated create body as a new record, or INVALID_INPUT / PRECONDITION_FAILED. Shared by
 * single and batch creation so that both refuse exactly the same bodies.
 */
export async function newAssetRecord(ctx: OperationContext, body: AssetCreateBody): Promise<AssetRecord> {
  const title = normalizeTitle(body.title);
  const tags = normalizeTags(body.tags ?? []);
  const pricing = resolvePricing(body.pricing_type ?? 'free', body.price);
  await requireCategory(ctx, body.category_id);
  const scheduled = resolveSchedule(ctx.caller.account, body.scheduled_publish_at) ?? null;
  const now = nowIso(ctx);
  return {
    id: recordId(ctx.ports.ids),
    owner_id: ctx.caller.account.id,
    title,
    slug: body.slug,
    description: body.description ?? null,
    status: 'draft',
    visibility: body.visibility ?? 'public',
    ...pricing,
    version: '1.0.0',
    category_id: body.category_id ?? null,
    tags,
    scheduled_publish_at: scheduled,
    download_count: 0,
    view_count: 0,
    file: null,
    review: null,
    created_at: now,
    updated_at: now,
    revision: 1,
  };
}

/** Inserts a new record; 409 CONFLICT when its slug is taken. */
export async function insertAsset(ctx: OperationContext, record: AssetRecord): Promise<AssetRecord> {
  const created = [assetEvent(ctx.ports.ids, 'asset.created', record, null, record.created_at)];
  const result = await commitWithEvents(ctx.ports, created, (events) => ctx.ports.storage.createAsset(record, events), (made) => made.outcome === 'created');
  if (result.outcome === 'slug_taken') throw new ApiError('CONFLICT', `The slug ${record.slug} is already taken.`);
  return result.asset;
}

export const createAsset = defineOperation({
  name: 'createAsset',
  rest: { method: 'POST', path: '/assets', status: 201, tag: 'Assets' },
  tool: {
    name: 'create_asset',
    title: 'Create a listing',
    description:
      'Creates a listing in draft. title (3 to 200 characters) and slug (lowercase letters, digits and hyphens, unique across ' +
      'the marketplace) are required; pricing_type defaults to free. Returns the listing: pass its id as asset_id to the next ' +
      'step, get_asset_upload_url. Only approved sellers can create listings.',
    annotations: addsOnce,
  },
  summary: 'Create a listing in draft',
  description: 'Returns the new listing; its id is what the upload steps take. Only approved, unrestricted sellers can create listings.',
  scope: 'assets:write',
  errors: ['NOT_A_SELLER', 'ACCOUNT_RESTRICTED', 'CONFLICT', 'PRECONDITION_FAILED'],
  requestClass: 'write',
  guard: requireActiveSeller,
  input: AssetCreateBody,
  output: AssetSchema,
  async run(ctx, input) {
    return assetView(await insertAsset(ctx, await newAssetRecord(ctx, input)));
  },
});

export const updateAsset = defineOperation({
  name: 'updateAsset',
  rest: { method: 'PATCH', path: '/assets/:id', params: { id: 'asset_id' }, tag: 'Assets' },
  tool: {
    name: 'update_asset',
    title: 'Update a listing',
    description:
      "Changes a listing's title, slug, description, pricing, visibility, tags, category or schedule: send asset_id and only " +
      'the fields to change. Allowed in draft, rejected, changes_requested and published; refused (INVALID_STATUS) while pending, scheduled or archived.',
    annotations: replaces,
  },
  summary: 'Change the metadata, pricing, visibility, tags or schedule of a listing',
  description: 'Allowed in draft, rejected, changes_requested and published. Only the fields sent change.',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'CONFLICT', 'INVALID_STATUS', 'PAYOUTS_REQUIRED', 'PRECONDITION_FAILED', 'ACCOUNT_RESTRICTED'],
  requestClass: 'write',
  guard: requireUnrestricted,
  input: Strict(ForAsset(AssetUpdateBody).properties, { minProperties: 2 }),
  output: AssetSchema,
  async run(ctx, input) {
    const { asset_id, ...body } = input as Static<typeof AssetUpdateBody> & { asset_id: string };
    const title = body.title === undefined ? undefined : normalizeTitle(body.title);
    const tags = body.tags === undefined ? undefined : normalizeTags(body.tags);
    await requireCategory(ctx, body.category_id);
    const changed = (before: AssetRecord, after: AssetRecord, at: string) => [assetEvent(ctx.ports.ids, 'asset.updated', after, before.status, at)];
    const { asset } = await changeOwnedAsset(ctx, asset_id, (current) => {
      const next = allowed(current, 'update');
      const pricingType = body.pricing_type ?? current.pricing_type;
      const price = body.price !== undefined ? body.price : body.pricing_type === 'free' ? null : current.price;
      const pricing =
        body.pricing_type !== undefined || body.price !== undefined ? resolvePricing(pricingType, price) : undefined;
      if (pricing && next === 'published' && isPaid(pricing) && !ctx.caller.account.payouts_connected) {
        throw new ApiError('PAYOUTS_REQUIRED', 'Connect payouts before a published listing becomes paid.');
      }
      const scheduled = resolveSchedule(ctx.caller.account, body.scheduled_publish_at);
      return {
        ...(title !== undefined ? { title } : {}),
        ...(body.slug !== undefined ? { slug: body.slug } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.visibility !== undefined ? { visibility: body.visibility } : {}),
        ...(body.category_id !== undefined ? { category_id: body.category_id } : {}),
        ...(tags !== undefined ? { tags } : {}),
        ...(scheduled !== undefined ? { scheduled_publish_at: scheduled } : {}),
        ...(pricing ?? {}),
      };
    }, changed);
    return assetView(asset);
  },
});

export const deleteAsset = defineOperation({
  name: 'deleteAsset',
  rest: { method: 'DELETE', path: '/assets/:id', params: { id: 'asset_id' }, tag: 'Assets' },
  tool: {
    name: 'delete_asset',
    title: 'Delete a draft listing',
    description: 'Deletes a draft listing for good, with its file and images. Only drafts can be deleted (NOT_DRAFT otherwise). Cannot be undone.',
    annotations: replaces,
  },
  summary: 'Delete a draft listing for good, with its files and images',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'NOT_DRAFT', 'CONFLICT'],
  requestClass: 'write',
  input: ForAsset(),
  output: DeleteAssetResultSchema,
  async run(ctx, input) {
    const result = await deleteListing(
      ctx.ports,
      () => loadOwnedAsset(ctx, input.asset_id),
      (asset) => allowed(asset, 'delete'),
      (asset, at) => [assetEvent(ctx.ports.ids, 'asset.deleted', asset, asset.status, at)],
    );
    // The records are gone; the bytes follow (staged and confirmed alike).
    const paths = new Set([
      ...(result.asset.file ? [result.asset.file.storage_path] : []),
      ...result.images.map((image) => image.storage_path),
      ...result.uploads.map((upload) => upload.storage_path),
    ]);
    // What a failure here leaves, or a PUT still under way writes, the upload sweep removes: deleteAsset kept them as garbage.
    await discardUploads(ctx.ports, [...paths]).catch(() => {});
    return { success: true as const, id: result.asset.id };
  },
});

/** The family's operations, in the order REST lists them and MCP offers their tools. */
export const assetOperations = [listAssets, countAssets, getAsset, createAsset, updateAsset, deleteAsset];
