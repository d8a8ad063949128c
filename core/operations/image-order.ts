/**
 * A gallery's order (issue 44): the seller names every image once, in the new order, and the first
 * becomes the primary ("make primary" is moving one to the front). For a listing's gallery here;
 * a version's new gallery takes the same body (version-images.ts, arrangeVersionImages).
 */
import { ApiError, invalidInput } from '../errors.js';
import type { ImageRecord } from '../ports/storage.js';
import { allowed } from '../domain/asset-states.js';
import { ArrangeImagesBody, ArrangedImagesSchema, ForAsset } from '../schemas/asset.js';
import { changeTime, commitWithEvents } from '../changes/commit.js';
import { imagesArrangedEvent } from '../changes/outbox-events.js';
import { imageView } from '../views.js';
import { loadOwnedAssetWithImages, requireUnrestricted } from './asset-rules.js';
import { defineOperation } from './context.js';
import { replaces } from './declaration.js';

/**
 * 400 naming image_ids unless `ids` names every image of `gallery` exactly once: a duplicate, an
 * unknown id, or a list that is not the whole gallery, each said as it is. `whose` is the gallery's owner in the words of the message.
 */
export function checkWholeGallery(gallery: readonly Pick<ImageRecord, 'id'>[], ids: readonly string[], whose: string): void {
  const seen = new Set<string>();
  const known = new Set(gallery.map((image) => image.id));
  for (const id of ids) {
    if (seen.has(id)) throw invalidInput('image_ids', `names image ${id} more than once: name each image of the gallery once`);
    if (!known.has(id)) throw invalidInput('image_ids', `names ${id}, which is not an image of ${whose}`);
    seen.add(id);
  }
  const left = gallery.filter((image) => !seen.has(image.id)).map((image) => image.id);
  if (left.length) throw invalidInput('image_ids', `must name every image of ${whose} (${gallery.length}), in the new order; missing: ${left.join(', ')}`);
}

/** Whether `ids` is the order `gallery` already has. */
export const sameOrder = (gallery: readonly Pick<ImageRecord, 'id'>[], ids: readonly string[]): boolean => gallery.length === ids.length && gallery.every((image, i) => image.id === ids[i]);

/** 409 CONFLICT: the gallery changed (an image added or removed) between the read and the write. */
export const galleryChanged = () => new ApiError('CONFLICT', 'The gallery changed while it was being arranged (an image was added or removed): read it again and send the whole new order.');

export const arrangeImages = defineOperation({
  name: 'arrangeImages',
  rest: { method: 'PUT', path: '/assets/:id/images/order', params: { id: 'asset_id' }, tag: 'Assets' },
  tool: {
    name: 'arrange_images',
    title: 'Reorder a listing’s gallery',
    description:
      'Puts the listing’s images in a new order: image_ids names every image of the listing exactly once (ids as get_asset shows them), ' +
      'and the first becomes the primary image (to make one primary, move it to the front). Answers the images in their new order. ' +
      'Allowed where adding an image is (draft, rejected, changes_requested, published).',
    annotations: replaces,
  },
  summary: "Reorder the listing's gallery; the first image becomes the primary",
  description:
    'image_ids names every image of the listing once, in the new order (400 INVALID_INPUT naming image_ids for a duplicate, an unknown id or a missing image). ' +
    'The first is the primary. 409 CONFLICT when an image was added or removed meanwhile. Allowed in the states that allow confirm-image (409 INVALID_STATUS otherwise).',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'INVALID_STATUS', 'CONFLICT', 'ACCOUNT_RESTRICTED'],
  requestClass: 'write',
  guard: requireUnrestricted,
  input: ForAsset(ArrangeImagesBody),
  output: ArrangedImagesSchema,
  async run(ctx, input) {
    const { asset, images } = await loadOwnedAssetWithImages(ctx, input.asset_id);
    allowed(asset, 'arrangeImages');
    checkWholeGallery(images, input.image_ids, 'this listing');
    // Already in this order: nothing to write, no event.
    if (sameOrder(images, input.image_ids)) return { images: images.map(imageView) };
    const events = [imagesArrangedEvent(ctx.ports.ids, asset, input.image_ids, changeTime(ctx.ports))];
    const result = await commitWithEvents(ctx.ports, events, (outbox) => ctx.ports.storage.arrangeImages(asset.id, input.image_ids, outbox), (made) => made.outcome === 'arranged');
    if (result.outcome === 'missing') throw new ApiError('NOT_FOUND', 'No listing with this id.');
    if (result.outcome === 'mismatch') throw galleryChanged();
    return { images: result.images.map(imageView) };
  },
});
