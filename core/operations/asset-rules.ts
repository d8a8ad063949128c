import { transition, type AssetAction, type AssetStatus } from '../domain/asset-states.js';
import { ApiError, invalidInput } from '../errors.js';
import { applyChanges, type AccountRecord, type AssetChanges, type AssetRecord, type OutboxEvent, type PricingType, type UpdateAssetResult } from '../ports/storage.js';
import { limits } from '../schemas/asset.js';
import type { Caller, OperationContext } from './context.js';

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

/** The caller's listing, or 404 for a missing one and for another seller's alike. */
export async function loadOwnedAsset(ctx: OperationContext, assetId: string): Promise<AssetRecord> {
  const asset = await ctx.ports.storage.getAsset(assetId);
  if (!asset || asset.owner_id !== ctx.caller.account.id) throw new ApiError('NOT_FOUND', 'No listing with this id.');
  return asset;
}

/** The next status for `action`, or the table's refusal as an ApiError. */
export function allowed(asset: Pick<AssetRecord, 'status'>, action: AssetAction): AssetStatus {
  const outcome = transition(asset.status, action);
  if ('refuse' in outcome) {
    throw new ApiError(outcome.refuse, refusalMessage(outcome.refuse, asset.status, action));
  }
  return outcome.next;
}

function refusalMessage(code: string, status: AssetStatus, action: AssetAction): string | undefined {
  if (code === 'INVALID_STATUS') return `A listing in status ${status} does not allow ${actionWords[action]}.`;
  return undefined;
}

const actionWords: Record<AssetAction, string> = {
  update: 'changes',
  delete: 'deletion',
  requestFileUpload: 'a new file',
  confirmFile: 'a new file',
  requestImageUpload: 'new images',
  confirmImage: 'new images',
  submit: 'submitting',
  submitScheduled: 'submitting',
  approve: 'approval',
  reject: 'rejection',
  requestChanges: 'a request for changes',
  archive: 'archiving',
  release: 'release',
};

const maxAttempts = 5;

/** The outbox event of a change to a listing, from the listing before it and after it (docs/webhooks.md). */
export type ChangeEvent = (before: AssetRecord, after: AssetRecord, at: string) => OutboxEvent;

/**
 * Reads the caller's listing, lets `decide` compute the change from what it read (or refuse),
 * and writes it only if nobody changed the listing in between; on a concurrent change it starts
 * over from a fresh read. This is the one way the core changes a listing. `event` makes the
 * change's outbox event, written with it.
 */
export async function changeOwnedAsset(
  ctx: OperationContext,
  assetId: string,
  decide: (asset: AssetRecord) => Promise<Omit<AssetChanges, 'updated_at'>> | Omit<AssetChanges, 'updated_at'>,
  event?: ChangeEvent,
): Promise<Extract<UpdateAssetResult, { outcome: 'updated' }>> {
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const asset = await loadOwnedAsset(ctx, assetId);
    const at = new Date(ctx.ports.clock.now()).toISOString();
    const changes: AssetChanges = { ...(await decide(asset)), updated_at: at };
    // A compare-and-set at the revision read: what it stores is exactly the record with these changes.
    const result = await ctx.ports.storage.updateAsset(asset.id, asset.revision, changes, event ? [event(asset, applyChanges(asset, changes), at)] : []);
    if (result.outcome === 'updated') return result;
    if (result.outcome === 'missing') throw new ApiError('NOT_FOUND', 'No listing with this id.');
    if (result.outcome === 'slug_taken') throw new ApiError('CONFLICT', 'This slug is already taken.');
  }
  throw new ApiError('CONFLICT', 'The listing was changed by another request at the same time; retry.');
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

export async function requireCategory(ctx: OperationContext, categoryId: string | null | undefined): Promise<void> {
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
