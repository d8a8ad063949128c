/**
 * Taking an uploaded gallery image (confirm-image's step, for a listing's gallery and a version's):
 * its bytes moved from the staging key to its storage path, checked to be what they say (WebP, PNG
 * or JPEG by their magic bytes, and the type the PUT declared). What is refused is removed.
 */
import { invalidInput } from '../errors.js';
import type { ImageRecord, IssuedUploadRecord } from '../ports/storage.js';
import type { OperationContext } from './context.js';
import { discardUploads, takeStagedUpload } from './upload-lifecycle.js';

const imageSignatures: { type: string; matches: (bytes: Uint8Array) => boolean }[] = [
  { type: 'image/png', matches: (b) => [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((v, i) => b[i] === v) },
  { type: 'image/jpeg', matches: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  {
    type: 'image/webp',
    matches: (b) => String.fromCharCode(...b.slice(0, 4)) === 'RIFF' && String.fromCharCode(...b.slice(8, 12)) === 'WEBP',
  },
];

/** The image type the bytes really are (by their magic bytes), or null. */
export function sniffImageType(bytes: Uint8Array): string | null {
  return imageSignatures.find((signature) => signature.matches(bytes))?.type ?? null;
}

/** The file names an image upload takes. */
export const imageExtensions = /\.(webp|png|jpe?g)$/i;

const notAnImage = () => invalidInput('public_url', 'is not a WebP, PNG or JPEG image');

/**
 * The issued image upload's bytes at their storage path, checked: its type and size. Bytes that are
 * no image are removed (or left to the upload sweep when the removal fails) and refused, 400 naming
 * public_url. The caller records the image and marks the upload confirmed.
 */
export async function takeImageUpload(ctx: OperationContext, issued: IssuedUploadRecord): Promise<{ contentType: string; size: number }> {
  const typeAt = async (key: string) => {
    const start = await ctx.ports.blobs.readStart(key, 16);
    return start ? sniffImageType(start) : null;
  };
  const moved = await takeStagedUpload(ctx.ports, ctx.settings, issued, {
    maxBytes: ctx.settings.maxImageBytes,
    accept: async (staged, staging) => {
      const sniffed = await typeAt(staging);
      if (!sniffed) throw notAnImage();
      // The bytes must be what the PUT declared (nothing declared: the bytes decide).
      const declared = staged.contentType.split(';', 1)[0]!.trim().toLowerCase().replace(/^image\/jpg$/, 'image/jpeg');
      if (declared !== 'application/octet-stream' && declared !== sniffed) {
        throw invalidInput('public_url', `was uploaded as ${declared}, but its bytes are ${sniffed}: upload it again with Content-Type ${sniffed}`);
      }
    },
  });
  const type = await typeAt(issued.storage_path);
  if (!type) {
    // Bytes that are no image, never confirmed: what a failed discard leaves the upload sweep removes once the URL has expired.
    await discardUploads(ctx.ports, [issued.storage_path]).catch(() => {});
    throw notAnImage();
  }
  return { contentType: type, size: moved.size };
}

/** What confirm-image answers (a listing's image, or one of a version's gallery). */
export const imageResult = (image: ImageRecord) => ({
  success: true as const,
  image_id: image.id,
  id: image.id,
  is_primary: image.is_primary,
  public_url: image.public_url,
  storage_path: image.storage_path,
  position: image.position,
});
