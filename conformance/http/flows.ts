/**
 * The steps most checks start from, each failing the requirement of the step that went wrong.
 */
import { expectError, expectStatus, sampleBytes, type CheckContext } from './check.js';

/** POST /assets; the new asset. */
export async function createDraft(ctx: CheckContext, overrides: Record<string, unknown> = {}, token = ctx.fixtures.seller): Promise<any> {
  const created = await ctx.client.post('/assets', token, { title: 'Conformance Pack', slug: ctx.slug(), ...overrides });
  expectStatus('ASSET-CREATE', created, 201);
  return created.body;
}

/** POST upload-url (200 or the check fails on UPLOAD-URL); the answer. */
export async function issueFileUrl(ctx: CheckContext, assetId: string, filename = 'conformance-file.zip', token = ctx.fixtures.seller) {
  const issued = await ctx.client.post(`/assets/${assetId}/upload-url`, token, { filename });
  expectStatus('UPLOAD-URL', issued, 200);
  return issued;
}

/** POST images/upload-url (200 or the check fails on IMAGE-URL); the answer. */
export async function issueImageUrl(ctx: CheckContext, assetId: string, filename: string) {
  const issued = await ctx.client.post(`/assets/${assetId}/images/upload-url`, ctx.fixtures.seller, { filename });
  expectStatus('IMAGE-URL', issued, 200);
  return issued;
}

/** POST confirm-file; the answer, unchecked. */
export function confirmFile(ctx: CheckContext, assetId: string, storagePath: string, fileSize: number, token = ctx.fixtures.seller) {
  return ctx.client.post(`/assets/${assetId}/confirm-file`, token, { storage_path: storagePath, file_size: fileSize });
}

/** confirm-file of an upload whose bytes never arrived: 400 INVALID_INPUT, or the check fails on `requirement`. */
export async function expectNothingToConfirm(ctx: CheckContext, requirement: string, assetId: string, storagePath: string) {
  expectError(requirement, await confirmFile(ctx, assetId, storagePath, sampleBytes.zip.byteLength), 400, 'INVALID_INPUT');
}

/** upload-url + PUT + confirm-file. */
export async function uploadFile(ctx: CheckContext, assetId: string, bytes: Uint8Array = sampleBytes.zip, token = ctx.fixtures.seller) {
  const issued = await issueFileUrl(ctx, assetId, 'conformance-file.zip', token);
  const put = await ctx.client.put(issued.body.signed_url, bytes, 'application/zip');
  expectStatus('UPLOAD-PUT-NO-AUTH', put, [200, 201, 204]);
  const confirmed = await confirmFile(ctx, assetId, issued.body.storage_path, bytes.byteLength, token);
  expectStatus('UPLOAD-CONFIRM', confirmed, 200);
  return { issued: issued.body, confirmed: confirmed.body };
}

/** images/upload-url + PUT + confirm-image; the confirm answer. */
export async function uploadImage(ctx: CheckContext, assetId: string, bytes: Uint8Array = sampleBytes.png, filename = 'shot.png') {
  const issued = await issueImageUrl(ctx, assetId, filename);
  const put = await ctx.client.put(issued.body.signed_url, bytes, filename.endsWith('.webp') ? 'image/webp' : 'image/png');
  expectStatus('UPLOAD-PUT-NO-AUTH', put, [200, 201, 204]);
  return ctx.client.post(`/assets/${assetId}/confirm-image`, ctx.fixtures.seller, { public_url: issued.body.public_url });
}

/** A draft with a confirmed file, submitted: status pending. */
export async function pendingAsset(ctx: CheckContext): Promise<string> {
  const asset = await createDraft(ctx);
  await uploadFile(ctx, asset.id);
  const submitted = await ctx.client.post(`/assets/${asset.id}/submit`, ctx.fixtures.seller);
  expectStatus('SUBMIT-PENDING', submitted, 200);
  return asset.id;
}

/** A UUID that names nothing on the server. */
export function unknownId(): string {
  return crypto.randomUUID();
}
