import type { ByteStream } from '../ports/blobs.js';

/** The account's quota refused room for more of a body still arriving: the store keeps nothing of it. */
export class QuotaRefusedError extends Error {
  constructor() {
    super('The storage quota has no room for more of this upload.');
  }
}

/** Where a body with no declared length starts reserving: then it doubles, so a big one takes few round trips. */
const firstStep = 2 ** 20;

/**
 * A body that reserves its room as it arrives (docs/uploads.md, "Quota"): before a chunk goes past
 * the bytes already `reserved`, the reservation grows (doubling, from 1 MiB, never past
 * `maxBytes`), or to exactly what has arrived when a doubling does not fit. When even that is
 * refused it throws QuotaRefusedError. A body whose length was declared reserved it all up front
 * and never asks again, unless it sends more than it declared.
 */
export async function* reservedBody(source: ByteStream, reserved: number, reserve: (bytes: number) => Promise<boolean>, maxBytes: number): ByteStream {
  let seen = 0;
  for await (const chunk of source) {
    seen += chunk.byteLength;
    if (seen > reserved) {
      const step = Math.min(Math.max(seen, reserved * 2, firstStep), maxBytes);
      if (step >= seen && (await reserve(step))) reserved = step;
      else if (await reserve(seen)) reserved = seen;
      else throw new QuotaRefusedError();
    }
    yield chunk;
  }
}
