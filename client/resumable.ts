/**
 * The resumable way of `uploadFile` (docs/uploads.md, "Clients that resume"): tus 1.0.0 PATCHes of
 * one chunk each, with `Upload-Checksum: sha256`, to the `upload_url` upload-url answers (asked with
 * `file_size`, so the upload resource exists at once). After a failed connection, a 5xx, a 409 or
 * a 460 it asks the server where the upload stands (HEAD) and goes on from there, with backoff;
 * with a resume store it goes on from there after its process restarted too. Only what the server
 * acknowledged is reported as progress, so progress never goes back. Memory: one chunk.
 */
import { errorFromResponse, MarketKitError } from './errors.js';
import { backoffDelay, sleep } from './retry.js';
import type { Transport } from './http.js';
import { fromBytes, supportsRequestStreams, type UploadProgress } from './upload.js';

/** A source the client can read at any offset: a Blob, or `fileSource(path)` on Node. */
export interface RandomAccessSource {
  size: number;
  /** The bytes from `start` to `end` (exclusive); the client is done with them before it asks again, so they may share one buffer. */
  slice(start: number, end: number): Promise<Uint8Array>;
  /** What identifies this content across processes (a path, size and mtime): the resume store's key. */
  fingerprint?: string;
  /** A streaming SHA-256 of the whole file (node:crypto on Node); without one no sha256 goes to confirm-file. */
  createHash?: () => IncrementalHash;
}

export interface IncrementalHash {
  update(bytes: Uint8Array): void;
  /** The digest as 64 lower-case hex. */
  digest(): string;
}

/** Where an upload in progress is remembered between processes; `fileResumeStore` on Node keeps it in a JSON file. */
export interface ResumeStore {
  get(key: string): Promise<ResumeEntry | undefined> | ResumeEntry | undefined;
  set(key: string, entry: ResumeEntry): Promise<void> | void;
  delete(key: string): Promise<void> | void;
}

export interface ResumeEntry {
  upload_url: string;
  storage_path: string;
  size: number;
  /** When upload_url stops working (ISO 8601). */
  expires_at: string;
}

export interface ResumableOptions {
  chunkSize: number;
  /** Whether to compute the file's SHA-256 (not when the caller gave it: the server checks that one). */
  hash: boolean;
  /** Failures in a row (without an acknowledged byte between them) before giving up. */
  attempts: number;
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}

const tus = { 'tus-resumable': '1.0.0' };
/**
 * Refusals after which HEAD and another try may succeed: an offset moved by another request (409),
 * another request holding the upload (423: a killed append's hold lapses within the server's upload
 * lease), a chunk damaged on the way (460).
 */
const resumeAfter = new Set([409, 423, 460]);

function base64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

export function isRandomAccess(source: unknown): source is RandomAccessSource {
  return typeof source === 'object' && source !== null && typeof (source as RandomAccessSource).slice === 'function' && typeof (source as RandomAccessSource).size === 'number';
}

/** Bytes and Blobs can be read at any offset; streams cannot (null). */
export function randomAccessOf(source: unknown): RandomAccessSource | null {
  if (source instanceof ArrayBuffer) return randomAccessOf(new Uint8Array(source));
  // Bytes have no identity across processes: they resume within the call only.
  if (source instanceof Uint8Array) return { size: source.byteLength, slice: async (start, end) => source.subarray(start, end) };
  return typeof Blob !== 'undefined' && source instanceof Blob ? blobSource(source) : null;
}

/** A Blob (a File in a browser) as a random-access source; its name, size and date as the fingerprint. */
function blobSource(blob: Blob): RandomAccessSource {
  const file = blob as Partial<File>;
  return {
    size: blob.size,
    slice: async (start, end) => new Uint8Array(await blob.slice(start, end).arrayBuffer()),
    ...(file.name !== undefined ? { fingerprint: `blob:${file.name}:${blob.size}:${file.lastModified ?? ''}` } : {}),
  };
}

/** The SHA-256 of the whole source as the server will have it, kept up as chunks are acknowledged. */
class WholeHash {
  private hash: IncrementalHash | null;
  private at = 0;

  constructor(private source: RandomAccessSource, wanted: boolean) {
    this.hash = (wanted && source.createHash?.()) || null;
  }

  /** Hashes up to `offset`, reading from the source what was not hashed yet (a resume starts at the server's offset). */
  async reach(offset: number, chunk?: { start: number; bytes: Uint8Array }): Promise<void> {
    if (!this.hash) return;
    if (offset < this.at) {
      this.hash = this.source.createHash!();
      this.at = 0;
    }
    if (chunk && chunk.start === this.at && chunk.start + chunk.bytes.byteLength === offset) {
      this.hash.update(chunk.bytes);
      this.at = offset;
      return;
    }
    for (const step = 8 * 2 ** 20; this.at < offset; ) {
      const end = Math.min(offset, this.at + step);
      this.hash.update(await this.source.slice(this.at, end));
      this.at = end;
    }
  }

  async digest(size: number): Promise<string | null> {
    if (!this.hash) return null;
    await this.reach(size);
    return this.hash.digest();
  }
}

/**
 * Sends the source to a tus upload resource from `start` (0 for a fresh one; the server's offset
 * when resuming) until the server holds every byte. Resolves with the file's SHA-256 when the
 * source can compute it, else null.
 */
export async function sendResumable(transport: Transport, uploadUrl: string, source: RandomAccessSource, start: number, options: ResumableOptions): Promise<string | null> {
  const hash = new WholeHash(source, options.hash);
  const size = source.size;
  const signal = options.signal ? { signal: options.signal } : {};
  let offset = start;
  await hash.reach(offset);
  options.onProgress?.({ loaded: offset, total: size });
  let failures = 0;

  /** After a failure: wait, then ask where the upload stands. */
  async function recover(failure: MarketKitError): Promise<void> {
    if (++failures > options.attempts) throw failure;
    // A 423 says when the hold is renewed or lapses (Retry-After): waiting less only asks again in vain.
    const told = failure.status === 423 ? toldWait(failure, transport.policy.maxRetryAfterMs, uploadUrl) : 0;
    await sleep(Math.max(told, backoffDelay(transport.policy, failures - 1)), options.signal);
    try {
      offset = await headOffset(transport, uploadUrl, size, signal);
      await hash.reach(offset);
    } catch (error) {
      if (!(error instanceof MarketKitError) || !retryable(error)) throw error;
      return recover(error);
    }
  }

  while (offset < size) {
    const bytes = await source.slice(offset, Math.min(size, offset + options.chunkSize));
    const digest = base64(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)));
    const headers = {
      ...tus,
      'content-type': 'application/offset+octet-stream',
      'content-length': String(bytes.byteLength),
      'upload-offset': String(offset),
      'upload-checksum': `sha256 ${digest}`,
    };
    let failure: MarketKitError;
    try {
      const response = await transport.fetchOnce('PATCH', uploadUrl, { ...patchBody(bytes), headers, ...signal });
      const reached = response.status === 204 ? offsetIn(response.headers.get('upload-offset'), size, `PATCH ${uploadUrl}`) : Number.NaN;
      if (response.status === 204 && !(reached > offset && reached <= size)) {
        // Not an answer of this protocol (a proxy's?): going on could loop or skip bytes.
        throw new MarketKitError({ status: 204, code: 'UNEXPECTED_RESPONSE', message: `PATCH ${uploadUrl} answered 204 with Upload-Offset ${response.headers.get('upload-offset')} for bytes ${offset} to ${offset + bytes.byteLength}.` });
      }
      if (response.status === 204) {
        await hash.reach(reached, { start: offset, bytes });
        if (reached > offset) failures = 0;
        offset = reached;
        options.onProgress?.({ loaded: offset, total: size });
        continue;
      }
      failure = await errorFromResponse(response, 'PATCH', 'the upload URL', Date.now());
    } catch (error) {
      if (!(error instanceof MarketKitError)) throw error;
      failure = error;
    }
    if (!retryable(failure)) throw failure;
    const before = offset;
    await recover(failure);
    if (offset > before) options.onProgress?.({ loaded: offset, total: size });
  }
  return hash.digest(size);
}

/**
 * A chunk as a request body: streamed where fetch can (Node's fetch copies a byte array it is given,
 * a second chunk in memory; with nodeFetch a stream goes through node:http as it is), else whole.
 */
function patchBody(bytes: Uint8Array): RequestInit & { duplex?: 'half' } {
  if (!supportsRequestStreams()) return { body: bytes as Uint8Array<ArrayBuffer> };
  return { body: fromBytes(bytes), duplex: 'half' };
}

/** A failure another try may get past: no answer, a 5xx, a 429, a 409, a 423 or a 460. */
function retryable(error: MarketKitError): boolean {
  return error.code === 'NETWORK_ERROR' || error.status >= 500 || error.status === 429 || resumeAfter.has(error.status);
}

/**
 * A 423's Retry-After in milliseconds (0 when it gave none). One longer than this client waits
 * (`retry.maxRetryAfterMs`) stops the upload, as a 429's does, instead of hanging it for as long as a
 * server says: run again later, it resumes from the server's offset.
 */
function toldWait(failure: MarketKitError, maxMs: number, uploadUrl: string): number {
  const seconds = failure.retryAfterSeconds;
  if (seconds === null) return 0;
  if (seconds * 1000 <= maxMs) return seconds * 1000;
  throw new MarketKitError({
    status: failure.status,
    code: failure.code,
    requestId: failure.requestId,
    retryAfterSeconds: seconds,
    message: `${failure.request?.split(' ')[0] ?? 'PATCH'} ${uploadUrl} answered ${failure.status} with Retry-After ${seconds}: longer than the ${maxMs / 1000} s this client waits; run it again later to resume`,
  });
}

/** Where the server's upload stands (HEAD): its offset, checked against the file's `size`. A 404, 403 or 410 means the upload is gone. */
export async function headOffset(transport: Transport, uploadUrl: string, size: number, signal: { signal?: AbortSignal } = {}): Promise<number> {
  const response = await transport.fetchOnce('HEAD', uploadUrl, { headers: tus, ...signal });
  if (response.status !== 200) throw await errorFromResponse(response, 'HEAD', 'the upload URL', Date.now());
  await response.body?.cancel();
  return offsetIn(response.headers.get('upload-offset'), size, `HEAD ${uploadUrl}`);
}

/**
 * An Upload-Offset the server answered, believed only when it is a whole number of bytes within
 * the file (0 to `size`): anything else is not an answer of this protocol (a proxy's, a broken
 * server's), and going on from it could skip bytes, send them twice or never end.
 */
export function offsetIn(value: string | null, size: number, what: string): number {
  const offset = value !== null && /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  if (!(offset >= 0 && offset <= size)) {
    throw new MarketKitError({ status: 0, code: 'UNEXPECTED_RESPONSE', message: `${what} answered Upload-Offset ${JSON.stringify(value)}: not a whole number of bytes from 0 to ${size}, the file's size.` });
  }
  return offset;
}

/** The key of an upload in the resume store: the listing and what the content is. */
export function resumeKey(assetId: string, fingerprint: string): string {
  return `${assetId} ${fingerprint}`;
}
