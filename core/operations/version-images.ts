/**
 * A version's new gallery (docs/moderation.md, "Versions"): images uploaded the way a listing's are
 * (images/upload-url, the PUT, confirm-image), under the version's own folder, kept on the version
 * in order until it goes live, when they replace the listing's images in the swap's commit. The
 * live listing's images are never touched while the version is prepared; a version without images
 * keeps the listing's gallery.
 */
import { Type } from '@sinclair/typebox';
import { ApiError, invalidInput } from '../errors.js';
import { recordId } from '../ports/ids.js';
import type { ImageRecord } from '../ports/storage.js';
import { ArrangeImagesBody, limits } from '../schemas/asset.js';
import { ConfirmImageBody, ConfirmImageResultSchema, ImageUploadUrlSchema, UploadUrlBody } from '../schemas/upload.js';
import { ForVersion, VersionSchema } from '../schemas/version.js';
import { versionAllowed } from '../domain/version-states.js';
import { galleryOf, versionImageFolder, versionOfPath, versionView } from '../versions/version-records.js';
import { changeVersion } from '../versions/version-changes.js';
import { requireUnrestricted } from './asset-rules.js';
import { defineOperation, nowIso } from './context.js';
import { adds, addsOnce, replaces } from './declaration.js';
import { imageExtensions, imageResult, takeImageUpload } from './image-confirm.js';
import { discardIfRefused } from './file-confirm.js';
import { issueUpload } from './issued-uploads.js';
import { discardUploads } from './upload-lifecycle.js';
import { checkWholeGallery, galleryChanged, sameOrder } from './image-order.js';
import { loadOwnedVersion } from './version-rules.js';

const tooMany = () => new ApiError('CONFLICT', `A version's gallery has at most ${limits.imagesMax} images.`);


export const createVersionImageUploadUrl = defineOperation({
  name: 'createVersionImageUploadUrl',
  rest: { method: 'POST', path: '/assets/:id/versions/:version_id/images/upload-url', params: { id: 'asset_id', version_id: 'version_id' }, tag: 'Uploads' },
  tool: {
    name: 'get_version_image_upload_url',
    title: 'Get an image upload URL for a version’s gallery',
    description:
      'A new gallery for a version, image step 1 of 2, as get_image_upload_url is for a listing: PUT the image (.webp, .png, .jpg, .jpeg) to signed_url ' +
      'outside MCP, then confirm_version_image with public_url. The version’s images replace the listing’s when it goes live; without any it keeps the listing’s.',
    annotations: adds,
  },
  summary: "Get a signed URL to PUT an image of a version's new gallery to",
  description: 'As images/upload-url is for a listing; the version must be draft or changes_requested (409 INVALID_STATUS). The live listing’s images are not touched.',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'INVALID_STATUS', 'PAYLOAD_TOO_LARGE', 'STORAGE_QUOTA_EXCEEDED', 'ACCOUNT_RESTRICTED'],
  requestClass: 'upload',
  guard: requireUnrestricted,
  input: ForVersion(UploadUrlBody),
  output: ImageUploadUrlSchema,
  async run(ctx, input) {
    if (!imageExtensions.test(input.filename)) throw invalidInput('filename', 'must end in .webp, .png, .jpg or .jpeg');
    const { asset, version } = await loadOwnedVersion(ctx, input.asset_id, input.version_id);
    versionAllowed(version, 'upload');
    const issued = await issueUpload(ctx, asset, 'image', input.filename, input.file_size, versionImageFolder(version.id));
    return { ...issued, public_url: issued.public_url! };
  },
});

export const confirmVersionImage = defineOperation({
  name: 'confirmVersionImage',
  rest: { method: 'POST', path: '/assets/:id/versions/:version_id/confirm-image', params: { id: 'asset_id', version_id: 'version_id' }, status: 201, tag: 'Uploads' },
  tool: {
    name: 'confirm_version_image',
    title: 'Confirm an image of a version’s gallery',
    description:
      'Image step 2 of 2 for a version: adds the uploaded image to the version’s new gallery (in order; the first becomes the primary when the version goes live). ' +
      'At most 10 images. The listing’s own images stay until a moderator approves the version.',
    annotations: addsOnce,
  },
  summary: "Add an uploaded image to the version's new gallery",
  description: 'As confirm-image is for a listing, into the version’s gallery (at most 10). Confirming an image again answers the same.',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'INVALID_STATUS', 'CONFLICT', 'PAYLOAD_TOO_LARGE', 'STORAGE_QUOTA_EXCEEDED', 'ACCOUNT_RESTRICTED'],
  requestClass: 'write',
  guard: requireUnrestricted,
  input: ForVersion(ConfirmImageBody),
  output: ConfirmImageResultSchema,
  async run(ctx, input) {
    const { asset, version: current } = await loadOwnedVersion(ctx, input.asset_id, input.version_id);
    const issued = await ctx.ports.storage.findUploadByPublicUrl(input.public_url);
    if (!issued || issued.asset_id !== asset.id || issued.kind !== 'image' || versionOfPath(issued.storage_path)?.versionId !== current.id) {
      throw invalidInput('public_url', 'was not issued for this version by its images/upload-url');
    }
    const path = issued.storage_path;
    const kept = (gallery: ImageRecord[] | null) => gallery?.find((image) => image.storage_path === path);
    if (issued.state === 'confirmed') {
      const existing = kept(current.gallery);
      if (!existing) throw invalidInput('public_url', 'was confirmed before and is gone: upload it again with a new URL');
      return imageResult(existing);
    }
    versionAllowed(current, 'upload');
    if ((current.gallery?.length ?? 0) >= limits.imagesMax) throw tooMany();
    const taken = await takeImageUpload(ctx, issued);
    const image: ImageRecord = { id: recordId(ctx.ports.ids), asset_id: asset.id, storage_path: path, public_url: issued.public_url!, content_type: taken.contentType, file_size: taken.size, is_primary: false, position: 0, created_at: nowIso(ctx) };
    const { version } = await changeVersion(ctx.ports, () => loadOwnedVersion(ctx, input.asset_id, input.version_id), (latest) => {
      versionAllowed(latest, 'upload');
      const gallery = latest.gallery ?? [];
      // A concurrent confirm of the same image added it: the gallery as it is.
      if (kept(gallery)) return { gallery };
      if (gallery.length >= limits.imagesMax) throw tooMany();
      return { gallery: galleryOf(asset.id, [...gallery, image]) };
    }).catch(async (error: unknown) => {
      // The change's error is the answer; the bytes stay for a retry unless the refusal is final (file-confirm.ts).
      await discardIfRefused(ctx.ports, path, error);
      throw error;
    });
    await ctx.ports.storage.setUploadState(path, ['issued', 'uploaded'], 'confirmed', taken.size);
    return imageResult(kept(version.gallery)!);
  },
});

export const deleteVersionImage = defineOperation({
  name: 'deleteVersionImage',
  rest: { method: 'DELETE', path: '/assets/:id/versions/:version_id/images/:image_id', params: { id: 'asset_id', version_id: 'version_id', image_id: 'image_id' }, tag: 'Assets' },
  tool: {
    name: 'delete_version_image',
    title: 'Remove an image from a version’s gallery',
    description: 'Removes one image from a version’s new gallery (the others keep their order; the first is the primary). A version left with none keeps the listing’s gallery.',
    annotations: replaces,
  },
  summary: "Remove an image from the version's new gallery",
  description: 'The version must be draft or changes_requested. When its last image is removed, the version keeps the listing’s gallery (gallery null).',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'INVALID_STATUS', 'CONFLICT'],
  requestClass: 'write',
  input: ForVersion({ properties: { image_id: Type.String({ description: 'The image id (a UUID), as confirm_version_image answered it.' }) } }),
  output: VersionSchema,
  async run(ctx, input) {
    const { asset, version, before } = await changeVersion(ctx.ports, () => loadOwnedVersion(ctx, input.asset_id, input.version_id), (latest) => {
      versionAllowed(latest, 'upload');
      const rest = (latest.gallery ?? []).filter((image) => image.id !== input.image_id);
      if (rest.length === (latest.gallery?.length ?? 0)) throw new ApiError('NOT_FOUND', 'No image with this id in the version’s gallery.');
      return { gallery: rest.length ? galleryOf(latest.asset_id, rest) : null };
    });
    const removed = before.gallery?.find((image) => image.id === input.image_id);
    // It will never go live: removed now, or by the sweep if this fails (nothing points at it any more).
    if (removed && asset) await discardUploads(ctx.ports, [removed.storage_path]).catch(() => {});
    return versionView(version);
  },
});

export const arrangeVersionImages = defineOperation({
  name: 'arrangeVersionImages',
  rest: { method: 'PUT', path: '/assets/:id/versions/:version_id/images/order', params: { id: 'asset_id', version_id: 'version_id' }, tag: 'Assets' },
  tool: {
    name: 'arrange_version_images',
    title: 'Reorder a version’s new gallery',
    description:
      'As arrange_images is for a listing, for a version’s new gallery: image_ids names every image of it exactly once, in the new order; the first becomes ' +
      'the primary when the version goes live. The version must be draft or changes_requested.',
    annotations: replaces,
  },
  summary: "Reorder the version's new gallery; the first image becomes the primary",
  description:
    'As images/order is for a listing: every image of the version’s gallery once (400 naming image_ids otherwise), the first the primary; 409 CONFLICT when an image was added or removed meanwhile. The version must be draft or changes_requested (409 INVALID_STATUS).',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'INVALID_STATUS', 'CONFLICT', 'ACCOUNT_RESTRICTED'],
  requestClass: 'write',
  guard: requireUnrestricted,
  input: ForVersion(ArrangeImagesBody),
  output: VersionSchema,
  async run(ctx, input) {
    const read = () => loadOwnedVersion(ctx, input.asset_id, input.version_id);
    const { version: current } = await read();
    versionAllowed(current, 'upload');
    checkWholeGallery(current.gallery ?? [], input.image_ids, 'this version’s gallery');
    // Already in this order (a version without a gallery of its own included): nothing to write.
    if (sameOrder(current.gallery ?? [], input.image_ids)) return versionView(current);
    const { version } = await changeVersion(ctx.ports, read, (latest) => {
      versionAllowed(latest, 'upload');
      const byId = new Map((latest.gallery ?? []).map((image) => [image.id, image]));
      if (byId.size !== input.image_ids.length || input.image_ids.some((id) => !byId.has(id))) throw galleryChanged();
      return { gallery: galleryOf(latest.asset_id, input.image_ids.map((id) => byId.get(id)!)) };
    });
    return versionView(version);
  },
});

export const versionImageOperations = [createVersionImageUploadUrl, confirmVersionImage, deleteVersionImage, arrangeVersionImages];
