/**
 * Signed upload URLs for the stores that cannot issue their own: an HMAC-SHA256 over the method,
 * the storage path, the expiry and the size limit. A URL works for one path, until it expires,
 * for bodies up to the limit it names; any change to it breaks the signature.
 */
import { ApiError } from '../errors.js';

export const blobRoutePrefix = '/api/v1/blobs/';

export type SignatureCheck = 'ok' | 'expired' | 'invalid';

export interface UploadSigner {
  /** The query string (without `?`) that authorizes a PUT of up to `maxBytes` to `path`. */
  sign(path: string, grant: { expiresAtMs: number; maxBytes: number }): Promise<string>;
  /** Checks a PUT's query against its path; `maxBytes` is returned when the signature holds. */
  verify(path: string, query: URLSearchParams, nowMs: number): Promise<{ check: SignatureCheck; maxBytes: number }>;
}

const encoder = new TextEncoder();

function toBase64Url(bytes: ArrayBuffer): string {
  let binary = '';
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    // Not base64url: no signature, and the URL is refused as one with a wrong signature.
    return null;
  }
}

function payload(path: string, expires: number, maxBytes: number): Uint8Array<ArrayBuffer> {
  return encoder.encode(`PUT\n${path}\n${expires}\n${maxBytes}`);
}

export function createUploadSigner(secret: Uint8Array): UploadSigner {
  if (secret.byteLength < 32) throw new Error('marketkit: the upload signing secret must be at least 32 bytes');
  const key = crypto.subtle.importKey('raw', new Uint8Array(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  return {
    async sign(path, { expiresAtMs, maxBytes }) {
      const expires = Math.floor(expiresAtMs / 1000);
      const signature = await crypto.subtle.sign('HMAC', await key, payload(path, expires, maxBytes));
      return `expires=${expires}&max=${maxBytes}&signature=${toBase64Url(signature)}`;
    },
    async verify(path, query, nowMs) {
      const expires = query.get('expires') ?? '';
      const max = query.get('max') ?? '';
      const signature = fromBase64Url(query.get('signature') ?? '');
      if (!/^\d{1,12}$/.test(expires) || !/^\d{1,15}$/.test(max) || !signature) return { check: 'invalid', maxBytes: 0 };
      const valid = await crypto.subtle.verify('HMAC', await key, signature, payload(path, Number(expires), Number(max)));
      if (!valid) return { check: 'invalid', maxBytes: 0 };
      if (Number(expires) * 1000 <= nowMs) return { check: 'expired', maxBytes: 0 };
      return { check: 'ok', maxBytes: Number(max) };
    },
  };
}

/** The URL path of a storage path: each segment percent-encoded. */
export function blobUrlPath(storagePath: string): string {
  return blobRoutePrefix + storagePath.split('/').map(encodeURIComponent).join('/');
}

/**
 * The bounds of every storage path the server issues, so that a path past them names nothing and
 * is refused before any store is asked: `assets/{uuid}/{files|images}/{uuid}/{name}` with the name
 * cut to 200 characters of `A-Z a-z 0-9 . _ -` (sanitizeFilename) is at most about 290 bytes. A
 * segment of at most 255 bytes is a name every file system takes (NAME_MAX); 1024 bytes in all is
 * S3's key limit, and with the fs store's root well inside PATH_MAX.
 */
export const storagePathLimits = { segmentBytes: 255, pathBytes: 1024 } as const;

/** UTF-8 length of a string without encoding it. */
function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
      bytes += 4; // a surrogate pair: one code point of four bytes
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function tooLong(): ApiError {
  return new ApiError(
    'URI_TOO_LONG',
    `No blob URL is this long: storage paths have segments of at most ${storagePathLimits.segmentBytes} bytes and at most ${storagePathLimits.pathBytes} bytes in all.`,
  );
}

/**
 * The storage path named by a blob URL path (the part after the prefix), or null when it is not
 * one we could have issued: bad percent-encoding, empty, `.` or `..` segments, or a `/` or `\`
 * hidden in a segment. Bindings differ in how they treat dot segments, so all of them are refused.
 * A path past `storagePathLimits` throws 414 URI_TOO_LONG, before anything is decoded at length.
 */
export function storagePathOf(encodedTail: string): string | null {
  // Each byte of a path is at most three characters (%XX) of its URL.
  if (encodedTail.length > 3 * storagePathLimits.pathBytes) throw tooLong();
  // A generated client sends the path as one parameter, its slashes encoded (%2F): the same path.
  const segments = encodedTail.split(/\/|%2[Ff]/);
  const decoded: string[] = [];
  let total = segments.length - 1;
  for (const segment of segments) {
    if (segment.length > 3 * storagePathLimits.segmentBytes) throw tooLong();
    let value: string;
    try {
      value = decodeURIComponent(segment);
    } catch {
      // A malformed escape: no path this server issued, refused as any other.
      return null;
    }
    if (value === '' || value === '.' || value === '..' || /[/\\\u0000-\u001f]/.test(value)) return null;
    const bytes = utf8Bytes(value);
    total += bytes;
    if (bytes > storagePathLimits.segmentBytes || total > storagePathLimits.pathBytes) throw tooLong();
    decoded.push(value);
  }
  return decoded.join('/');
}
