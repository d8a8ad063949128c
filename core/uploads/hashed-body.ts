import type { ByteStream } from '../ports/blobs.js';
import { AppendRefusedError } from '../ports/resumable-blobs.js';
import type { OneShotSha256 } from '../ports/hashing.js';
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
  options: { maxBytes?: number; chunkChecksum?: { expected: string; hasher: OneShotSha256 } } = {},
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
  if (check && check.hasher.hex() !== hexOfBase64(check.expected)) throw new AppendRefusedError('checksum');
}

/** The tus checksum's base64 digest as lower-case hex; a value that is not base64 matches no digest. */
function hexOfBase64(text: string): string {
  try {
    return Array.from(atob(text), (c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('');
  } catch {
    // Not base64: a digest no hash has, so the chunk is refused as one that does not match.
    return '';
  }
}
