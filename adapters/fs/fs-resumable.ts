import { createHash } from 'node:crypto';
import { constants, mkdir, open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobInfo } from '../../core/ports/blobs.js';
import { AppendRefusedError, type ResumableBlobs } from '../../core/ports/resumable-blobs.js';
import { batchedWrites } from './batched-writes.js';
import { removeFsLeftovers } from './fs-leftovers.js';

const readBytes = 1024 * 1024;

/**
 * The resumable capability of the fs blob store: each upload in progress is one partial file under
 * `partial/` (named by a hash of its key: any key fits a file name), appended at the offset the
 * core gives, cut back to it first, and fsynced before an append resolves, so the offset the core
 * then records is never past bytes a crash can lose. `place` moves the finished file into its object.
 */
export function fsResumable(root: string, place: (file: string, key: string, contentType: string) => Promise<void>): ResumableBlobs {
  const dir = join(root, 'partial');
  const fileOf = (key: string) => join(dir, createHash('sha256').update(key).digest('hex'));
  return {
    async append(key, from, body) {
      await mkdir(dir, { recursive: true });
      const handle = await open(fileOf(key), constants.O_RDWR | constants.O_CREAT, 0o600);
      let position = from.offset;
      const writes = batchedWrites(handle, from.offset);
      // Fewer bytes than recorded: the partial file was lost (or completed and moved away), and
      // appending would leave zeros where the recorded bytes were. Nothing is written then.
      const { size } = await handle.stat();
      if (size < from.offset) {
        await handle.close();
        throw new Error(`marketkit fsBlobs: the partial file of ${key} holds ${size} bytes, fewer than the ${from.offset} recorded`);
      }
      try {
        // Bytes past the recorded offset were never acknowledged: they go.
        await handle.truncate(from.offset);
        const chunks = body[Symbol.asyncIterator]();
        for (;;) {
          let next: IteratorResult<Uint8Array>;
          try {
            next = await chunks.next();
          } catch (error) {
            if (error instanceof AppendRefusedError) throw error;
            // The client went away: what it sent is kept (and was hashed), so all of it is written first.
            position += await writes.flush();
            await handle.sync();
            return { ...from, offset: position, interrupted: error };
          }
          if (next.done) break;
          await writes.add(next.value);
        }
        position += await writes.flush();
        await handle.sync();
        return { ...from, offset: position };
      } catch (error) {
        // A write still in flight would land after the cut: it finishes first.
        await writes.settle();
        // The append's own error is the answer. A cut that fails leaves bytes past the recorded offset,
        // which the next append cuts before it writes (above).
        await handle.truncate(from.offset).catch(() => {});
        await handle.sync().catch(() => {});
        throw error;
      } finally {
        await handle.close();
      }
    },
    async complete(key, progress, contentType): Promise<BlobInfo> {
      const file = fileOf(key);
      const info = await stat(file);
      if (info.size !== progress.offset) throw new Error(`marketkit fsBlobs: the partial file of ${key} holds ${info.size} bytes, not ${progress.offset}`);
      await place(file, key, contentType);
      return { size: info.size, contentType };
    },
    async digest(key, progress) {
      const hash = createHash('sha256');
      const handle = await open(fileOf(key), 'r');
      try {
        const buffer = new Uint8Array(readBytes);
        for (let at = 0; at < progress.offset; ) {
          const { bytesRead } = await handle.read(buffer, 0, Math.min(readBytes, progress.offset - at), at);
          if (bytesRead === 0) throw new Error(`marketkit fsBlobs: the partial file of ${key} ends before ${progress.offset} bytes`);
          hash.update(buffer.subarray(0, bytesRead));
          at += bytesRead;
        }
      } finally {
        await handle.close();
      }
      return hash.digest('hex');
    },
    async abort(key) {
      await rm(fileOf(key), { force: true });
    },
    removeLeftovers: (untouchedForMs) => removeFsLeftovers(root, untouchedForMs),
  };
}
