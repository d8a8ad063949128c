/**
 * Developer tokens: `smcp_` + 32 random base62 characters + a 6-character base62 CRC-32 of them.
 * The checksum lets a secret scanner (and our own authenticator) tell a token from a typo
 * without a look-up. Only the SHA-256 of the whole token is stored.
 */
import { sha256Hex } from './sha256.js';

export const tokenPrefix = 'smcp_';
const randomLength = 32;
const checksumLength = 6;
const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const tokenPattern = new RegExp(`^${tokenPrefix}[0-9A-Za-z]{${randomLength},}$`);

/** Characters of a token shown in listings: enough to recognise it, far too few to use it. */
export const displayPrefixLength = 12;

const crcTable = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = crcTable[(crc ^ text.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function checksumOf(random: string): string {
  let value = crc32(random);
  let out = '';
  for (let i = 0; i < checksumLength; i++) {
    out = base62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** A fresh token from `randomBytes` (32 bytes or more of randomness). */
export function formatToken(randomBytes: Uint8Array): string {
  let random = '';
  // Rejection sampling keeps every character uniform over base62.
  for (const byte of randomBytes) {
    if (byte < 248) random += base62[byte % 62];
    if (random.length === randomLength) break;
  }
  if (random.length < randomLength) throw new Error('formatToken: not enough random bytes; pass at least 48');
  return `${tokenPrefix}${random}${checksumOf(random)}`;
}

/** True when `token` has the developer-token shape and its checksum matches. No look-up. */
export function hasValidChecksum(token: string): boolean {
  if (!tokenPattern.test(token)) return false;
  const body = token.slice(tokenPrefix.length);
  const random = body.slice(0, -checksumLength);
  if (random.length < randomLength) return false;
  return checksumOf(random) === body.slice(-checksumLength);
}

export function looksLikeDeveloperToken(token: string): boolean {
  return token.startsWith(tokenPrefix);
}

/** Hex SHA-256 of the token: the only form in which a token is stored or compared. */
export async function hashToken(token: string): Promise<string> {
  return sha256Hex(token);
}
