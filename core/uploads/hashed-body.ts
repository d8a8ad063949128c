import type { ByteStream } from '../ports/blobs.js';
import { AppendRefusedError } from '../ports/resumable-blobs.js';
import type { ResumableSha256 } from './sha256.js';

/**
 * The body of an upload as the store reads it, hashed on the way: every chunk goes into `hasher`
 * as it is handed on, so the hash covers exactly the bytes the store took. Past `maxBytes`, and at
 * the end when the chunk's own SHA-256 (`chunkChecksum`: the tus checksum extension, base64) does
 * not match, it throws AppendRefusedError, and the store keeps nothing of it; a checked chunk cut
 * off cannot be checked, so it is refused too.
 */
export async function* hashedBody(
  source: ByteStream,
  hasher: Pick<ResumableSha256, 'update'>,
  options: { maxBytes?: number; chunkChecksum?: { expected: string; hasher: ResumableSha256 } } = {},
): ByteStream {
  let bytes = 0;
  const check = options.chunkChecksum;
  try {
    for await (const chunk of source) {
      bytes += chunk.byteLength;
      if (options.maxBytes !== undefined && bytes > options.maxBytes) throw new AppendRefusedError('too-large');
      check?.hasher.update(chunk);
      hasher.update(chunk);
      yield chunk;
    }
  } catch (error) {
    if (check && !(error instanceof AppendRefusedError)) throw new AppendRefusedError('interrupted');
    throw error;
  }
  if (check && check.hasher.base64() !== check.expected) throw new AppendRefusedError('checksum');
}
