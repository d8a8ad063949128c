import { LayeredMap } from './layered-map.js';
import { BlobTooLargeError, type BlobInfo, type BlobPort, type ByteStream } from '../../core/ports/blobs.js';
import { AppendRefusedError, type ResumableBlobs } from '../../core/ports/resumable-blobs.js';

interface StoredBlob {
  bytes: Uint8Array;
  contentType: string;
}

/** A memory blob store's objects at one moment, restorable any number of times. Opaque. */
export interface MemoryBlobsSnapshot {
  readonly kind: 'memoryBlobs';
  /** @internal */
  readonly objects: ReadonlyMap<string, unknown>;
}

export interface MemoryBlobs extends BlobPort {
  /** Uploads in appends, held in memory until complete (core/ports/resumable-blobs.ts). */
  resumable: ResumableBlobs;
  readonly size: number;
  /** The objects now; stored bytes are never changed in place, so none is copied (layered-map.ts). */
  snapshot(): MemoryBlobsSnapshot;
  /** Puts back the objects of a snapshot, in constant time. */
  restore(snapshot: MemoryBlobsSnapshot): void;
}

const info = (blob: StoredBlob): BlobInfo => ({ size: blob.bytes.byteLength, contentType: blob.contentType });

/**
 * The blob port in this process's memory. Each object is held whole, so memory grows with the
 * uploads: meant for tests and prototypes, not for large files.
 */
export function memoryBlobs(): MemoryBlobs {
  const objects = new LayeredMap<string, StoredBlob>();
  return {
    resumable: memoryResumable(objects),
    get size() {
      return objects.size;
    },
    snapshot() {
      return { kind: 'memoryBlobs', objects: objects.freeze() };
    },
    restore(snapshot) {
      if (snapshot?.kind !== 'memoryBlobs') throw new Error('memoryBlobs.restore: pass a value returned by snapshot()');
      objects.thaw(snapshot.objects as ReadonlyMap<string, StoredBlob>);
    },
    put: (path, body, { contentType, maxBytes }) => putObject(objects, path, body, contentType, maxBytes),
    async head(path) {
      const blob = objects.get(path);
      return blob ? info(blob) : null;
    },
    async readStart(path, length) {
      const blob = objects.get(path);
      return blob ? blob.bytes.slice(0, length) : null;
    },
    async readRange(path, offset, length) {
      const blob = objects.get(path);
      return blob ? blob.bytes.slice(offset, offset + length) : null;
    },
    async get(path) {
      const blob = objects.get(path);
      if (!blob) return null;
      const bytes = blob.bytes;
      return {
        ...info(blob),
        body: (async function* () {
          yield bytes;
        })(),
      };
    },
    async move(from, to) {
      const blob = objects.get(from);
      if (!blob) return null;
      objects.set(to, blob);
      objects.delete(from);
      return info(blob);
    },
    async delete(path) {
      objects.delete(path);
    },
    async ping() {},
  };
}

async function putObject(objects: LayeredMap<string, StoredBlob>, path: string, body: ByteStream, contentType: string, maxBytes: number): Promise<BlobInfo> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new BlobTooLargeError(maxBytes);
    chunks.push(chunk.slice());
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  // Only a complete body is stored: a failed stream threw above and left the old object.
  const blob = { bytes, contentType };
  objects.set(path, blob);
  return info(blob);
}

/** Uploads in appends: each upload's chunks held until complete makes them its object. */
function memoryResumable(objects: LayeredMap<string, StoredBlob>): ResumableBlobs {
  const partial = new Map<string, Uint8Array[]>();
  /** The chunks of an upload in progress, cut back to `offset` bytes. */
  const cutTo = (key: string, offset: number): Uint8Array[] => {
    const kept: Uint8Array[] = [];
    let size = 0;
    for (const chunk of partial.get(key) ?? []) {
      if (size >= offset) break;
      kept.push(chunk.subarray(0, Math.min(chunk.byteLength, offset - size)));
      size += kept[kept.length - 1]!.byteLength;
    }
    partial.set(key, kept);
    return kept;
  };
  return {
    async append(key, from, body) {
      const chunks = cutTo(key, from.offset);
      let offset = from.offset;
      try {
        for await (const chunk of body) {
          chunks.push(chunk.slice());
          offset += chunk.byteLength;
        }
      } catch (error) {
        if (error instanceof AppendRefusedError) {
          cutTo(key, from.offset);
          throw error;
        }
        return { ...from, offset, interrupted: error };
      }
      return { ...from, offset };
    },
    async complete(key, progress, contentType) {
      const bytes = new Uint8Array(progress.offset);
      let at = 0;
      for (const chunk of cutTo(key, progress.offset)) {
        bytes.set(chunk, at);
        at += chunk.byteLength;
      }
      partial.delete(key);
      const blob = { bytes, contentType };
      objects.set(key, blob);
      return info(blob);
    },
    async abort(key) {
      partial.delete(key);
    },
  };
}
