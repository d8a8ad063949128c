import type { BlobPort } from './blobs.js';

/**
 * `length` bytes of the object at `path` from `offset`: the store's own range read when it has one
 * (BlobPort.readRange), else its bytes streamed from the start, skipped up to the offset and
 * dropped (never held whole). Null when there is no object.
 */
export async function readBlobRange(blobs: BlobPort, path: string, offset: number, length: number): Promise<Uint8Array | null> {
  if (blobs.readRange) return blobs.readRange(path, offset, length);
  const object = await blobs.get(path);
  if (!object) return null;
  const out = new Uint8Array(Math.max(0, Math.min(length, object.size - offset)));
  let at = 0;
  let filled = 0;
  for await (const chunk of object.body) {
    const from = Math.max(0, offset - at);
    const to = Math.min(chunk.byteLength, offset + out.byteLength - at);
    if (to > from) {
      out.set(chunk.subarray(from, to), filled);
      filled += to - from;
    }
    at += chunk.byteLength;
    if (filled >= out.byteLength) break;
  }
  return out.subarray(0, filled);
}
