import { ApiError, invalidInput } from '../errors.js';
import type { ImageRecord } from '../ports/storage.js';
import { recordId } from '../ports/ids.js';
import { ForAsset, limits } from '../schemas/asset.js';
import {
  ConfirmFileBody,
  ConfirmFileResultSchema,
  ConfirmImageBody,
  ConfirmImageResultSchema,
  ImageUploadUrlSchema,
  UploadUrlBody,
  UploadUrlSchema,
} from '../schemas/upload.js';
import { allowed } from '../domain/asset-states.js';
import { changeOwnedAsset, loadOwnedAsset, requireUnrestricted } from './asset-rules.js';
import { discardUploads } from './upload-lifecycle.js';
import { imageExtensions, imageResult, takeImageUpload } from './image-confirm.js';
import { defineOperation, nowIso } from './context.js';
import { adds, addsOnce, replaces } from './declaration.js';
import { issueUpload } from './issued-uploads.js';
import { confirmedAgain, discardIfRefused, takeFileUpload } from './file-confirm.js';
import { versionOfPath } from '../versions/version-records.js';
import { fileView } from '../views.js';
import { commitWithEvents } from '../changes/commit.js';
import { arrangeImages } from './image-order.js';
import { fileConfirmedEvent, imageConfirmedEvent } from '../changes/outbox-events.js';


export const createAssetUploadUrl = defineOperation({
  name: 'createAssetUploadUrl',
  rest: { method: 'POST', path: '/assets/:id/upload-url', params: { id: 'asset_id' }, tag: 'Uploads' },
  tool: {
    name: 'get_asset_upload_url',
    title: 'Get a file upload URL',
    description:
      "Upload step 1 of 2 for the listing's file. Pass file_size (bytes) when known: it is reserved against the storage quota " +
      'at once (413 if it does not fit). Returns signed_url, upload_url and storage_path. The bytes go outside MCP, without an ' +
      'Authorization header, before expires_at: one HTTP PUT to signed_url, or for a large file (over 5 GiB on S3) the tus ' +
      'resumable protocol at upload_url. Then call confirm_asset_file with storage_path and the exact byte size. Refused on a published listing (LISTING_IS_LIVE).',
    annotations: adds,
  },
  summary: "Get a signed URL to PUT the listing's file to",
  description:
    'Step 1 of the upload: PUT the bytes to signed_url (no Authorization header, with the Content-Type), or send them to upload_url (tus 1.0.0, resumable), then confirm-file with storage_path. On S3 a single PUT takes at most 5 GiB: larger files go to upload_url.',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'LISTING_IS_LIVE', 'INVALID_STATUS', 'PAYLOAD_TOO_LARGE', 'STORAGE_QUOTA_EXCEEDED', 'ACCOUNT_RESTRICTED'],
  requestClass: 'upload',
  guard: requireUnrestricted,
  input: ForAsset(UploadUrlBody),
  output: UploadUrlSchema,
  async run(ctx, input) {
    const asset = await loadOwnedAsset(ctx, input.asset_id);
    allowed(asset, 'requestFileUpload');
    const { public_url: _none, ...issued } = await issueUpload(ctx, asset, 'file', input.filename, input.file_size);
    return issued;
  },
});

export const createImageUploadUrl = defineOperation({
  name: 'createImageUploadUrl',
  rest: { method: 'POST', path: '/assets/:id/images/upload-url', params: { id: 'asset_id' }, tag: 'Uploads' },
  tool: {
    name: 'get_image_upload_url',
    title: 'Get an image upload URL',
    description:
      'Image step 1 of 2: a signed URL for a gallery image (filename ending in .webp, .png, .jpg or .jpeg; WebP is the format ' +
      'served). PUT the image bytes to signed_url, outside MCP, without an Authorization header; then call confirm_image with public_url.',
    annotations: adds,
  },
  summary: 'Get a signed URL to PUT a gallery image to',
  description: 'WebP is the served format; PNG and JPEG are accepted. Then confirm-image with public_url.',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'INVALID_STATUS', 'PAYLOAD_TOO_LARGE', 'STORAGE_QUOTA_EXCEEDED', 'ACCOUNT_RESTRICTED'],
  requestClass: 'upload',
  guard: requireUnrestricted,
  input: ForAsset(UploadUrlBody),
  output: ImageUploadUrlSchema,
  async run(ctx, input) {
    if (!imageExtensions.test(input.filename)) throw invalidInput('filename', 'must end in .webp, .png, .jpg or .jpeg');
    const asset = await loadOwnedAsset(ctx, input.asset_id);
    allowed(asset, 'requestImageUpload');
    const issued = await issueUpload(ctx, asset, 'image', input.filename, input.file_size);
    return { ...issued, public_url: issued.public_url! };
  },
});

export const confirmAssetFile = defineOperation({
  name: 'confirmAssetFile',
  rest: { method: 'POST', path: '/assets/:id/confirm-file', params: { id: 'asset_id' }, tag: 'Uploads' },
  tool: {
    name: 'confirm_asset_file',
    title: 'Confirm the uploaded file',
    description:
      "Upload step 2 of 2: after the PUT, makes the uploaded file the listing's file. storage_path is the one " +
      'get_asset_upload_url returned; file_size is the exact number of bytes uploaded. A new file replaces the previous one, which is deleted.',
    annotations: replaces,
  },
  summary: 'Confirm the uploaded file as the listing file',
  description:
    'storage_path must be one issued for this listing and file_size the exact size uploaded. A new file replaces the previous one; confirming the current file again answers the same.',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'LISTING_IS_LIVE', 'INVALID_STATUS', 'CONFLICT', 'PAYLOAD_TOO_LARGE', 'STORAGE_QUOTA_EXCEEDED', 'CHECKSUM_MISMATCH', 'EMPTY_FILE', 'ACCOUNT_RESTRICTED'],
  requestClass: 'write',
  guard: requireUnrestricted,
  input: ForAsset(ConfirmFileBody),
  output: ConfirmFileResultSchema,
  async run(ctx, input) {
    const current = await loadOwnedAsset(ctx, input.asset_id);
    allowed(current, 'confirmFile');
    const path = input.storage_path;
    const issued = await ctx.ports.storage.getUpload(path);
    if (!issued || issued.asset_id !== current.id || issued.kind !== 'file') {
      throw invalidInput('storage_path', 'was not issued for this listing by upload-url');
    }
    if (versionOfPath(path)) throw invalidInput('storage_path', 'was issued for a version of this listing: confirm it under the version (versions/{version_id}/confirm-file)');
    if (issued.state === 'confirmed') return { success: true as const, file: fileView(confirmedAgain(current.file, path, input)) };
    const file = await takeFileUpload(ctx, issued, input);
    const { asset, previous } = await changeOwnedAsset(
      ctx,
      current.id,
      (latest) => {
        allowed(latest, 'confirmFile');
        return { file };
      },
      (before, after, at) => [fileConfirmedEvent(ctx.ports.ids, after, before.status, at)],
    ).catch(async (error: unknown) => {
      // The change's error is the answer; the bytes stay for a retry unless the refusal is final (file-confirm.ts).
      await discardIfRefused(ctx.ports, path, error);
      throw error;
    });
    await ctx.ports.storage.setUploadState(path, ['issued', 'uploaded'], 'confirmed', file.file_size);
    const replaced = previous.file?.storage_path;
    // The replaced file is garbage from the update on; removed now, or by the sweep if this fails.
    if (replaced && replaced !== path) await discardUploads(ctx.ports, [replaced]).catch(() => {});
    return { success: true as const, file: fileView(asset.file!) };
  },
});

export const confirmAssetImage = defineOperation({
  name: 'confirmAssetImage',
  rest: { method: 'POST', path: '/assets/:id/confirm-image', params: { id: 'asset_id' }, status: 201, tag: 'Uploads' },
  tool: {
    name: 'confirm_image',
    title: 'Confirm an uploaded image',
    description:
      'Image step 2 of 2: after the PUT, adds the image to the listing by the public_url get_image_upload_url returned. ' +
      "The bytes must really be WebP, PNG or JPEG. The first image becomes the listing's primary image; at most 10 images.",
    annotations: addsOnce,
  },
  summary: 'Register an uploaded gallery image',
  description: 'The first image of a listing is its primary image and thumbnail. At most 10 images. Confirming an image again answers the same.',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'INVALID_STATUS', 'CONFLICT', 'PAYLOAD_TOO_LARGE', 'STORAGE_QUOTA_EXCEEDED', 'ACCOUNT_RESTRICTED'],
  requestClass: 'write',
  guard: requireUnrestricted,
  input: ForAsset(ConfirmImageBody),
  output: ConfirmImageResultSchema,
  async run(ctx, input) {
    const asset = await loadOwnedAsset(ctx, input.asset_id);
    allowed(asset, 'confirmImage');
    const issued = await ctx.ports.storage.findUploadByPublicUrl(input.public_url);
    if (!issued || issued.asset_id !== asset.id || issued.kind !== 'image') {
      throw invalidInput('public_url', 'was not issued for this listing by images/upload-url');
    }
    if (versionOfPath(issued.storage_path)) throw invalidInput('public_url', 'was issued for a version of this listing: confirm it under the version (versions/{version_id}/confirm-image)');
    const path = issued.storage_path;
    let image: ImageRecord;
    if (issued.state === 'confirmed') {
      const existing = (await ctx.ports.storage.listImages(asset.id)).find((i) => i.storage_path === path);
      if (!existing) throw invalidInput('public_url', 'was confirmed before and is gone: upload it again with a new URL');
      image = existing;
    } else {
      const taken = await takeImageUpload(ctx, issued);
      // An image of no listing (gone) or past the limit, never confirmed: what a failed discard leaves the upload sweep removes once the URL has expired.
      const discard = () => discardUploads(ctx.ports, [path]).catch(() => {});
      const added = { id: recordId(ctx.ports.ids), asset_id: asset.id, storage_path: path, public_url: issued.public_url!, content_type: taken.contentType, file_size: taken.size, created_at: nowIso(ctx) };
      // `exists`: a concurrent confirm of the same image added it, and wrote the event.
      const confirmed = [imageConfirmedEvent(ctx.ports.ids, asset, added, added.created_at)];
      const result = await commitWithEvents(ctx.ports, confirmed, (events) => ctx.ports.storage.addImage(added, limits.imagesMax, events), (made) => made.outcome === 'added');
      if (result.outcome === 'missing' || result.outcome === 'limit') await discard();
      if (result.outcome === 'missing') throw new ApiError('NOT_FOUND', 'No listing with this id.');
      if (result.outcome === 'limit') throw new ApiError('CONFLICT', `A listing has at most ${limits.imagesMax} images.`);
      await ctx.ports.storage.setUploadState(path, ['issued', 'uploaded'], 'confirmed', taken.size);
      image = result.image;
    }
    return imageResult(image);
  },
});

/** The family's operations, in the order REST lists them and MCP offers their tools. */
export const uploadOperations = [createAssetUploadUrl, confirmAssetFile, createImageUploadUrl, confirmAssetImage, arrangeImages];
