import { ApiError, invalidInput } from '../errors.js';
import type { AccountRecord, AssetChanges, AssetRecord, CategoriesPort, ImageRecord, ListingsPort, PricingType } from '../ports/storage.js';
import { changeListing, type ListingEvents, type ListingUpdated } from '../changes/commit.js';
import { limits } from '../schemas/asset.js';
import type { Caller, OperationContext, Ports, PortsWith } from './context.js';

/** 403 unless the caller may create listings (contract: before input validation). */
export function requireActiveSeller(caller: Caller): void {
  if (caller.account.seller_status !== 'approved') throw new ApiError('NOT_A_SELLER');
  requireUnrestricted(caller);
}

/**
 * 403 for a restricted account (contract, Accounts): it keeps reading its profile and listings and
 * may delete its drafts, but cannot create, change, upload to or submit a listing.
 */
export function requireUnrestricted(caller: Caller): void {
  if (caller.account.is_restricted) throw new ApiError('ACCOUNT_RESTRICTED');
}

/** An operation's context as a helper below uses it: the caller, and the ports it names. */
type CallerWith<Storage, Others extends Exclude<keyof Ports, 'storage'> = never> = Pick<OperationContext, 'caller'> & { ports: PortsWith<Storage, Others> };

/** The caller's listing, or 404 for a missing one and for another seller's alike. */
export async function loadOwnedAsset(ctx: CallerWith<Pick<ListingsPort, 'getAsset'>>, assetId: string): Promise<AssetRecord> {
  const asset = await ctx.ports.storage.getAsset(assetId);
  if (!asset || asset.owner_id !== ctx.caller.account.id) throw new ApiError('NOT_FOUND', 'No listing with this id.');
  return asset;
}

/** loadOwnedAsset with its images: in one read where the store has getAssetWithImages (one round trip on PostgreSQL). */
export async function loadOwnedAssetWithImages(ctx: CallerWith<Pick<ListingsPort, 'getAsset' | 'getAssetWithImages' | 'listImages'>>, assetId: string): Promise<{ asset: AssetRecord; images: ImageRecord[] }> {
  const { storage } = ctx.ports;
  if (!storage.getAssetWithImages) {
    const asset = await loadOwnedAsset(ctx, assetId);
    return { asset, images: await storage.listImages(asset.id) };
  }
  const found = await storage.getAssetWithImages(assetId);
  if (!found || found.asset.owner_id !== ctx.caller.account.id) throw new ApiError('NOT_FOUND', 'No listing with this id.');
  return found;
}

/**
 * Changes the caller's listing on the one change path (core/changes/commit.ts): `decide` computes
 * the change from the listing as read (or refuses), `events` makes the change's outbox events, and
 * a concurrent change makes it start over from a fresh read.
 */
export async function changeOwnedAsset(
  ctx: CallerWith<Pick<ListingsPort, 'getAsset' | 'updateAsset' | 'deleteAsset'>, 'clock' | 'ids' | 'events' | 'nudgeDeliveries' | 'tracing'>,
  assetId: string,
  decide: (asset: AssetRecord) => Promise<Omit<AssetChanges, 'updated_at'>> | Omit<AssetChanges, 'updated_at'>,
  events: ListingEvents,
): Promise<ListingUpdated> {
  return changeListing(ctx.ports, () => loadOwnedAsset(ctx, assetId), decide, events);
}

/** Whether buyers pay for the listing: fixed, or pay-what-you-want with a minimum above 0. */
export function isPaid(asset: { pricing_type: PricingType; price: number | null }): boolean {
  return asset.pricing_type === 'fixed' || (asset.pricing_type === 'pwyw' && (asset.price ?? 0) > 0);
}

function hasAtMostTwoDecimals(value: number): boolean {
  const cents = value * 100;
  return Math.abs(cents - Math.round(cents)) < 1e-6;
}

/** The stored pricing for a pricing type and price, or 400 naming `price`. */
export function resolvePricing(
  pricingType: PricingType,
  price: number | null | undefined,
): { pricing_type: PricingType; price: number | null; is_free: boolean } {
  if (price != null && !hasAtMostTwoDecimals(price)) throw invalidInput('price', 'must have at most 2 decimals');
  switch (pricingType) {
    case 'free':
      if (price != null && price !== 0) throw invalidInput('price', 'must be null or 0 when pricing_type is free');
      return { pricing_type: 'free', price: price ?? null, is_free: true };
    case 'fixed':
      if (price == null || price <= 0) throw invalidInput('price', 'must be greater than 0 when pricing_type is fixed');
      return { pricing_type: 'fixed', price, is_free: false };
    case 'pwyw':
      return { pricing_type: 'pwyw', price: price ?? 0, is_free: false };
  }
}

export function normalizeTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed.length < limits.titleMin || trimmed.length > limits.titleMax) {
    throw invalidInput('title', `must be ${limits.titleMin} to ${limits.titleMax} characters`);
  }
  return trimmed;
}

/** Tags trimmed, empty ones refused, duplicates dropped case-insensitively, first spelling and order kept. */
export function normalizeTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  tags.forEach((tag, index) => {
    const trimmed = tag.trim();
    if (trimmed.length < 1 || trimmed.length > limits.tagMax) {
      throw invalidInput(`tags[${index}]`, `must be 1 to ${limits.tagMax} characters`);
    }
    const key = trimmed.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      out.push(trimmed);
    }
  });
  return out;
}

export async function requireCategory(ctx: CallerWith<Pick<CategoriesPort, 'getCategory'>>, categoryId: string | null | undefined): Promise<void> {
  if (categoryId == null) return;
  if (!(await ctx.ports.storage.getCategory(categoryId))) {
    throw invalidInput('category_id', 'must be the id of an existing category');
  }
}

export const schedulingFeature = 'scheduled_publishing';

/** Normalizes a schedule; setting one needs the plan feature (409 PRECONDITION_FAILED). */
export function resolveSchedule(account: AccountRecord, value: string | null | undefined): string | null | undefined {
  if (value == null) return value;
  if (!account.plan_features.includes(schedulingFeature)) {
    throw new ApiError('PRECONDITION_FAILED', `Scheduling needs the plan feature ${schedulingFeature}.`);
  }
  return new Date(value).toISOString();
}
