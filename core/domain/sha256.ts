import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';

/**
 * SHA-256 of a string's UTF-8 bytes, as lower-case hex, synchronously (@noble/hashes, audited).
 *
 * Why not crypto.subtle.digest: every request that carries a token hashes it, and on Node the Web
 * Crypto call costs about 25 µs of CPU (WebIDL conversions, a promise, a thread-pool job) for the
 * one 64-byte block a token needs; a synchronous hash does it in a few µs. The answers are the same
 * bytes: test/core/sha256.test.ts holds it to crypto.subtle on random inputs.
 */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
