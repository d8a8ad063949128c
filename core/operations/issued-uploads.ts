/**
 * Issuing an upload (upload-url's step): the storage path, the upload's record, a declared size
 * reserved against the quota, and its two URLs (signed_url, and the resumable upload_url).
 */
import { blobUrlPath } from './blob-urls.js';
import type { AssetRecord, IssuedUploadRecord } from '../ports/storage.js';
import { boundDeclaredSize, reserveDeclared, resumableKey, stagingKey } from './upload-lifecycle.js';
import { nowIso, type OperationContext } from './context.js';
import { tusUploadUrl } from './tus-urls.js';
import { newUploadState } from '../uploads/upload-states.js';

/** A client's file name as the last segment of a storage path: it can never leave its prefix. */
export function sanitizeFilename(filename: string): string {
  const safe = filename
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 200);
  return safe || 'file';
}

export async function issueUpload(
  ctx: OperationContext,
  asset: AssetRecord,
  kind: IssuedUploadRecord['kind'],
  filename: string,
  declaredSize: number | undefined,
  /** Where under the listing's paths: a version's file goes under its own folder (core/versions/version-records.ts). */
  folder: string = kind === 'file' ? 'files' : 'images',
): Promise<{ signed_url: string; storage_path: string; public_url: string | null; expires_at: string; method: 'PUT'; upload_url: string }> {
  const storagePath = `assets/${asset.id}/${folder}/${ctx.ports.ids.uuid()}/${sanitizeFilename(filename)}`;
  const expiresAtMs = ctx.ports.clock.now() + ctx.settings.uploadUrlTtlMs;
  const maxBytes = boundDeclaredSize(declaredSize, kind === 'file' ? ctx.settings.maxFileBytes : ctx.settings.maxImageBytes);
  const { blobs } = ctx.ports;
  const publicUrl = kind === 'image' ? (blobs.publicUrl?.(storagePath) ?? ctx.siteUrl + blobUrlPath(storagePath)) : null;
  const expiresAt = new Date(Math.floor(expiresAtMs / 1000) * 1000).toISOString();
  await ctx.ports.storage.recordUpload({
    storage_path: storagePath,
    asset_id: asset.id,
    kind,
    public_url: publicUrl,
    expires_at: expiresAt,
    created_at: nowIso(ctx),
    state: 'issued',
    size: null,
  });
  // A declared size is reserved at once (docs/uploads.md, "Quota"); refused, the upload is forgotten.
  if (declaredSize !== undefined) {
    await reserveDeclared(ctx.ports, ctx.settings, storagePath, declaredSize, 'file_size').catch((error) => ctx.ports.storage.forgetUploads([storagePath]).then(() => Promise.reject(error)));
  }
  // A store's own URL names the staging key: confirm moves the bytes where no URL reaches. A file
  // declared past what one PUT to it takes (S3: 5 GiB) gets the core's URL, which refuses it with 413 naming upload_url.
  const direct = declaredSize === undefined || declaredSize <= (blobs.maxDirectUploadBytes ?? Infinity);
  const signedUrl = blobs.issueDirectUpload && direct
    ? (await blobs.issueDirectUpload(stagingKey(storagePath), { maxBytes, expiresAt: new Date(expiresAtMs) })).url
    : `${ctx.siteUrl}${blobUrlPath(storagePath)}?${await ctx.signer.sign(storagePath, { expiresAtMs, maxBytes })}`;
  // A declared size makes the resumable upload at once: its upload_url takes HEAD and PATCH without a creation POST.
  if (declaredSize !== undefined) await ctx.ports.uploadStates.create(newUploadState(storagePath, declaredSize, expiresAt, nowIso(ctx), resumableKey({ kind, storage_path: storagePath })));
  const uploadUrl = await tusUploadUrl(ctx.siteUrl, ctx.signer, storagePath, { expiresAtMs, maxBytes });
  return { signed_url: signedUrl, storage_path: storagePath, public_url: publicUrl, expires_at: expiresAt, method: 'PUT', upload_url: uploadUrl };
}

