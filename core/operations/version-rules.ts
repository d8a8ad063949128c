/** The rules every version operation shares: the caller's listing and version, the strings used before. */
import { ApiError, invalidInput } from '../errors.js';
import type { AssetChanges, AssetRecord } from '../ports/storage.js';
import type { VersionFieldChanges, VersionRecord } from '../ports/versions.js';
import { versionNotFound, versionsPort } from '../versions/version-changes.js';
import { loadOwnedAsset, normalizeTags, normalizeTitle, resolvePricing } from './asset-rules.js';
import type { OperationContext } from './context.js';

/** The caller's listing and one of its versions, or 404 for either. */
export async function loadOwnedVersion(ctx: OperationContext, assetId: string, versionId: string) {
  const asset = await loadOwnedAsset(ctx, assetId);
  const version = await versionsPort(ctx.ports.storage).getVersion(versionId);
  if (!version || version.asset_id !== asset.id) throw versionNotFound();
  return { asset, version };
}

/** The version strings a listing has used: its versions' and the live one's. */
export async function earlierVersions(ctx: OperationContext, assetId: string, live: string, except?: string): Promise<string[]> {
  const all = await versionsPort(ctx.ports.storage).listVersions(assetId);
  return [live, ...all.filter((v) => v.id !== except).map((v) => v.version)];
}

export const notPublished = (status: string) =>
  new ApiError('INVALID_STATUS', `Only a published listing gets versions; this one is ${status}. A listing not yet published takes a new file through upload-url and confirm-file.`);

/** A version's field changes as sent, normalized and checked as a listing's own fields are (title trimmed, tags deduplicated, price against its pricing type). */
export function normalizeChanges(changes: VersionFieldChanges | undefined, live: AssetRecord): VersionFieldChanges {
  if (!changes) return {};
  const out: VersionFieldChanges = {};
  if (changes.title !== undefined) out.title = normalizeTitle(changes.title);
  if (changes.description !== undefined) out.description = changes.description;
  if (changes.tags !== undefined) out.tags = normalizeTags(changes.tags);
  if (changes.pricing_type !== undefined || changes.price !== undefined) {
    const pricing = resolvePricing(changes.pricing_type ?? live.pricing_type, changes.price !== undefined ? changes.price : live.price);
    if (changes.pricing_type !== undefined) out.pricing_type = pricing.pricing_type;
    out.price = pricing.price;
  }
  return out;
}

/** What the listing becomes when `version` goes live: its file, its version string and its field changes. */
export function goLiveChanges(asset: AssetRecord, version: VersionRecord, at: string): AssetChanges {
  if (!version.file) throw invalidInput('version', 'has no confirmed file');
  const changes: AssetChanges = { file: { ...version.file }, version: version.version, updated_at: at };
  const fields = version.changes;
  if (fields.title !== undefined) changes.title = fields.title;
  if (fields.description !== undefined) changes.description = fields.description;
  if (fields.tags !== undefined) changes.tags = [...fields.tags];
  if (fields.pricing_type !== undefined || fields.price !== undefined) {
    const pricing = resolvePricing(fields.pricing_type ?? asset.pricing_type, fields.price !== undefined ? fields.price : asset.price);
    Object.assign(changes, pricing);
  }
  return changes;
}
