import type { FileHandle } from 'node:fs/promises';

/**
 * Writes a body's chunks to a file in batches of about `batchBytes`, one writev each, the next batch
 * gathered while the previous one is written (docs/performance.md, "Uploads"). An HTTP body arrives
 * in chunks of 16 to 64 KiB: a write (a trip through libuv's thread pool) per chunk cost the single
 * PUT a fifth of the bare server's throughput. At most two batches are held: memory stays bounded.
 */
export interface BatchedWrites {
  /** Takes a chunk (kept, not copied: the caller must not reuse it); waits only when a batch must go. */
  add(chunk: Uint8Array): Promise<void>;
  /** Writes whatever is held and waits for every write; resolves with the bytes written in all. */
  flush(): Promise<number>;
  /** Drops what is held and waits for a write in flight (failed or not): for a body refused midway. */
  settle(): Promise<void>;
}

const defaultBatchBytes = 1024 * 1024;

async function writeAllV(handle: FileHandle, chunks: Uint8Array[], position: number | null): Promise<void> {
  let rest = chunks;
  let at = position;
  while (rest.length > 0) {
    const { bytesWritten } = await handle.writev(rest, at ?? undefined);
    if (at !== null) at += bytesWritten;
    // A short write (rare on a regular file) continues from the first byte not written.
    let skip = bytesWritten;
    while (rest.length > 0 && skip >= rest[0]!.byteLength) {
      skip -= rest[0]!.byteLength;
      rest = rest.slice(1);
    }
    if (skip > 0) rest = [rest[0]!.subarray(skip), ...rest.slice(1)];
  }
}

/** Batched writes to `handle` from `position` on (null: the handle's own position, as a file opened to write has). */
export function batchedWrites(handle: FileHandle, position: number | null, batchBytes = defaultBatchBytes): BatchedWrites {
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  let written = 0;
  let next = position;
  let inFlight: Promise<void> = Promise.resolve();
  const send = () => {
    const batch = held;
    const at = next;
    if (next !== null) next += heldBytes;
    written += heldBytes;
    held = [];
    heldBytes = 0;
    return writeAllV(handle, batch, at);
  };
  return {
    async add(chunk) {
      held.push(chunk);
      heldBytes += chunk.byteLength;
      if (heldBytes < batchBytes) return;
      await inFlight;
      inFlight = send();
      // Seen by the next add or flush; until then nobody waits on it, so it must not go unhandled.
      inFlight.catch(() => {});
    },
    async flush() {
      await inFlight;
      if (heldBytes > 0) await send();
      return written;
    },
    async settle() {
      held = [];
      heldBytes = 0;
      // The body was refused already, and that error is the answer: a failed write in flight changes nothing.
      await inFlight.catch(() => {});
    },
  };
}
