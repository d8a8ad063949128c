import { AwsV4Signer } from 'aws4fetch';
import type { S3Settings } from './options.js';

/** SigV4 presigned URLs live at most 7 days. */
export const maxPresignSeconds = 7 * 24 * 60 * 60;

/** An object key as a URL path: each segment percent-encoded, the slashes kept. */
export const encodeKey = (key: string) => key.split('/').map(encodeURIComponent).join('/');

/** `20260115T120000Z`, the SigV4 date format. */
const amzDate = (ms: number) => new Date(ms).toISOString().replace(/[:-]|\.\d{3}/g, '');

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

const idempotent = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);
const retryStatuses = new Set([429, 500, 502, 503, 504]);
/** How long a request that works on a whole object may take (a multipart completion, a part copy). */
const slowRequestMs = 15 * 60 * 1000;
/** Waits before the second and third tries. */
const retryDelaysMs = [100, 400];

/** A failed answer from the store, with its status and S3 error code, for the operator's log. */
export class S3RequestError extends Error {
  constructor(
    readonly method: string,
    readonly key: string,
    readonly status: number,
    readonly s3Code: string | null,
  ) {
    super(`marketkit s3Blobs: ${method} ${key || 'of the bucket'} answered ${status}${s3Code ? ` ${s3Code}` : ''}`);
    this.name = 'S3RequestError';
  }
}

export interface S3SendOptions {
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** A streamed download: no time limit on the answer. */
  stream?: boolean;
  /** A request that works on the whole object (a multipart completion, a part copy): a longer time limit. */
  slow?: boolean;
}

/** The settings, and the derived signing keys kept between requests. */
interface S3Signing {
  settings: S3Settings;
  /**
   * The derived signing key, one per day: derived with four HMACs, kept instead of redone per URL
   * (and dropped now and then, so that a server running for months keeps a few days' keys at most).
   */
  cache: Map<string, ArrayBuffer>;
}

/** The few S3 requests the blob port needs, signed with aws4fetch (Web Crypto and fetch only). */
export function s3Client(settings: S3Settings) {
  const signing: S3Signing = { settings, cache: new Map() };
  return {
    urlOf: (key: string) => urlOf(settings, key),
    send: (method: string, key: string, options: S3SendOptions = {}) => send(signing, method, key, options),
    fail,
    presign: (method: 'PUT' | 'GET', key: string, expiresAtMs: number, query: Record<string, string> = {}) => presign(signing, method, key, expiresAtMs, query),
  };
}

export type S3Client = ReturnType<typeof s3Client>;

const trimCache = ({ cache }: S3Signing) => {
  if (cache.size > 4) cache.clear();
};

/** The object's address (or the bucket's, for an empty key), path-style or virtual-hosted. */
function urlOf(settings: S3Settings, key: string): URL {
  const url = new URL(settings.endpoint.href);
  const base = url.pathname.replace(/\/+$/, '');
  if (settings.pathStyle) {
    url.pathname = key ? `${base}/${settings.bucket}/${encodeKey(key)}` : `${base}/${settings.bucket}`;
  } else {
    url.hostname = `${settings.bucket}.${url.hostname}`;
    url.pathname = `${base}/${encodeKey(key)}`;
  }
  return url;
}

/** A signed request; `body` is sent with its SHA-256, so the store refuses bytes altered on the way. */
async function send(signing: S3Signing, method: string, key: string, options: S3SendOptions): Promise<Response> {
  const { settings, cache } = signing;
  const url = urlOf(settings, key);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) {
    const bytes = typeof options.body === 'string' ? new TextEncoder().encode(options.body) : options.body;
    headers['x-amz-content-sha256'] = await sha256Hex(bytes);
  }
  // S3 asks clients to retry 500, 503 (SlowDown) and the like; requests that repeat safely are.
  const attempts = idempotent.has(method) ? retryDelaysMs.length + 1 : 1;
  for (let attempt = 1; ; attempt++) {
    trimCache(signing);
    const signer = new AwsV4Signer({ ...settings.credentials, url: url.href, method, headers, service: 's3', region: settings.region, cache });
    const signed = await signer.sign();
    try {
      // A streamed download may take as long as it takes; everything else is bounded.
      // A multipart completion or a part copy works on the whole object (AWS says a completion may
      // take minutes, and s3rver concatenates the parts): it gets slowRequestMs, not requestTimeoutMs.
      const timeoutMs = options.slow ? Math.max(settings.requestTimeoutMs, slowRequestMs) : settings.requestTimeoutMs;
      // The body goes to fetch as it is, not in a Request, which would copy it (5 MiB and more per
      // part, garbage until the collector runs), so that a fetch that sends it in place can
      // (nodeFetch, which `marketkit serve` on Node gives: also no 300 s limit on a slow answer).
      const response = await settings.fetch(signed.url, {
        method,
        headers: signed.headers,
        ...(options.body !== undefined ? { body: options.body as BodyInit } : {}),
        ...(options.stream ? {} : { signal: AbortSignal.timeout(timeoutMs) }),
      });
      if (attempt >= attempts || !retryStatuses.has(response.status)) return response;
      // A refusal to retry: its body is read only to free the connection, and failing to read it changes nothing.
      await response.arrayBuffer().catch(() => {});
    } catch (error) {
      if (attempt >= attempts) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, retryDelaysMs[attempt - 1]));
  }
}

/** Throws the store's refusal as an S3RequestError (after reading its error code). */
async function fail(method: string, key: string, response: Response): Promise<never> {
  // A refusal whose body cannot be read is thrown with its status and no code.
  const text = await response.text().catch(() => '');
  throw new S3RequestError(method, key, response.status, /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? null);
}

/** A presigned URL for `method` on `key`, dated by the marketplace's clock, valid until `expiresAtMs`. */
async function presign(signing: S3Signing, method: 'PUT' | 'GET', key: string, expiresAtMs: number, query: Record<string, string>): Promise<string> {
  const { settings, cache } = signing;
  const now = settings.clock.now();
  // X-Amz-Date has whole seconds: count from that second to the one expires_at reports, so
  // the store refuses the URL exactly when the marketplace says it expires.
  const seconds = Math.floor(expiresAtMs / 1000) - Math.floor(now / 1000);
  if (seconds < 1) throw new Error(`marketkit s3Blobs: a URL that expires at ${new Date(expiresAtMs).toISOString()} has already expired`);
  if (seconds > maxPresignSeconds) {
    throw new Error(`marketkit s3Blobs: S3 presigned URLs live at most 7 days; set the upload URL lifetime (uploadUrlTtlSeconds) to 604800 or less`);
  }
  const url = urlOf(settings, key);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  url.searchParams.set('X-Amz-Expires', String(seconds));
  trimCache(signing);
  const signer = new AwsV4Signer({
    ...settings.credentials,
    url: url.href,
    method,
    service: 's3',
    region: settings.region,
    signQuery: true,
    datetime: amzDate(now),
    cache,
  });
  return (await signer.sign()).url.toString();
}
