/**
 * What a version is made of beyond its states: its views, where its file is kept, and how its
 * field changes become a listing's (docs/moderation.md, "Versions").
 */
import type { AssetRecord, ImageRecord } from '../ports/storage.js';
import type { VersionFieldChanges, VersionRecord } from '../ports/versions.js';
import { fileView, imageView } from '../views.js';
import { reviewView } from '../domain/review-history.js';

export function versionView(record: VersionRecord) {
  return {
    id: record.id,
    asset_id: record.asset_id,
    version: record.version,
    release_notes: record.release_notes,
    status: record.status,
    file: record.file ? fileView(record.file) : null,
    changes: { ...record.changes },
    gallery: record.gallery ? record.gallery.map(imageView) : null,
    review: reviewView(record.review),
    release_at: record.release_at,
    created_at: record.created_at,
    submitted_at: record.submitted_at,
    decided_at: record.decided_at,
  };
}

/** The folder of a listing's storage paths a version's uploads go to: `assets/{id}/versions/{version id}/files/...`. */
export const versionFolder = (versionId: string) => `versions/${versionId}/files`;

/** Where a version's gallery images go: `assets/{id}/versions/{version id}/images/...`. */
export const versionImageFolder = (versionId: string) => `versions/${versionId}/images`;

/** A version's gallery as the listing's images: in the version's order, the first primary. */
export const galleryOf = (assetId: string, gallery: readonly ImageRecord[]): ImageRecord[] =>
  gallery.map((image, position) => ({ ...image, asset_id: assetId, position, is_primary: position === 0 }));

/** The storage paths a version holds: its file's and its gallery's (what is removed when it lets go of them). */
export const versionUploads = (version: Pick<VersionRecord, 'file' | 'gallery'>): string[] => [
  ...(version.file ? [version.file.storage_path] : []),
  ...(version.gallery ?? []).map((image) => image.storage_path),
];

/**
 * The folder of a file's storage path, what one upload of a file replaces within (the quota leaves
 * out the confirmed file it replaces): `assets/{id}/files/` for a listing's, `assets/{id}/versions/{vid}/files/`
 * for a version's (never the live file beside it).
 */
export const fileFolder = (path: string): string => /^assets\/[^/]+\/(?:versions\/[^/]+\/)?files\//.exec(path)?.[0] ?? path;

const versionPath = /^assets\/([^/]+)\/versions\/([^/]+)\/(?:files|images)\//;

/** The listing and version a storage path belongs to, when it is a version's upload; else null. */
export function versionOfPath(storagePath: string): { assetId: string; versionId: string } | null {
  const match = versionPath.exec(storagePath);
  return match ? { assetId: match[1]!, versionId: match[2]! } : null;
}

/** The fields a version's changes name, as the listing has them now: what a superseded version records, for a rollback. */
export function liveFields(asset: AssetRecord): Required<VersionFieldChanges> {
  return { title: asset.title, description: asset.description, tags: [...asset.tags], pricing_type: asset.pricing_type, price: asset.price };
}
