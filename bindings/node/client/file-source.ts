/**
 * A file on disk as an upload source for the typed client (`marketkit/client`), which has no
 * file system of its own: `client.uploadFile(assetId, await fileSource('./pack.zip'))`. The file
 * is streamed, never read whole; its size (for Content-Length and confirm-file) and name come
 * from the file system. It is also a random-access source (docs/uploads.md, "Clients that
 * resume"): a large file goes up in chunks read at any offset, hashed with node:crypto, and
 * known again after a restart by its path, size and modification time.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { IncrementalHash, RandomAccessSource } from '../../../client/resumable.js';
import type { SizedSource } from '../../../client/upload.js';

export type FileSource = SizedSource & RandomAccessSource & { name: string; fingerprint: string };

export async function fileSource(path: string): Promise<FileSource> {
  const full = resolve(path);
  const info = await stat(full);
  if (!info.isFile()) throw new Error(`fileSource: ${path} is not a file.`);
  // One buffer for every slice (RandomAccessSource allows it): a chunk read per PATCH would leave
  // the garbage collector gigabytes of buffers to find, and the process's memory would grow with them.
  let scratch = new Uint8Array(0);
  return {
    // Opened when read (the single PUT), not when made: the resumable way never reads the stream.
    get stream() {
      return createReadStream(full);
    },
    size: info.size,
    name: basename(full),
    fingerprint: `file:${full}:${info.size}:${info.mtimeMs}`,
    async slice(start, end) {
      const handle = await open(full, 'r');
      try {
        if (scratch.byteLength < end - start) scratch = new Uint8Array(end - start);
        const bytes = scratch.subarray(0, end - start);
        let at = 0;
        while (at < bytes.length) {
          const { bytesRead } = await handle.read(bytes, at, bytes.length - at, start + at);
          if (bytesRead === 0) throw new Error(`fileSource: ${path} ended at ${start + at} bytes; it was ${info.size} when the upload began.`);
          at += bytesRead;
        }
        return bytes;
      } finally {
        await handle.close();
      }
    },
    createHash(): IncrementalHash {
      const hash = createHash('sha256');
      return { update: (bytes) => void hash.update(bytes), digest: () => hash.digest('hex') };
    },
  };
}
