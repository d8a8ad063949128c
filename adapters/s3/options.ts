import * as v from 'valibot';
import { ConfigurationError } from '../../core/errors.js';
import { parseOptions } from '../../core/options.js';
import type { ClockPort } from '../../core/ports/clock.js';

const MiB = 1024 * 1024;

const httpUrl = (name: string) =>
  v.pipe(
    v.string(`${name} must be a URL`),
    v.url(`${name} must be an absolute http(s) URL`),
    v.check((value) => /^https?:\/\//i.test(value), `${name} must be an absolute http(s) URL`),
  );

const OptionsSchema = v.object({
  bucket: v.pipe(
    v.string('bucket must be the bucket name'),
    v.regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'bucket must be an S3 bucket name (3-63 characters: a-z, 0-9, "." and "-")'),
  ),
  /** The S3 API address (MinIO, R2, Ceph, ...). Default: AWS S3 in `region`. */
  endpoint: v.optional(httpUrl('endpoint')),
  region: v.optional(v.pipe(v.string('region must be a string'), v.regex(/^[a-z0-9-]{1,40}$/, 'region must be a region name such as us-east-1 (or auto)'))),
  /** Put before every storage path: `marketkit/` keeps the objects under one folder of a shared bucket. */
  prefix: v.optional(
    v.pipe(
      v.string('prefix must be a string'),
      v.regex(/^(?:[A-Za-z0-9._-]+\/?)*$/, 'prefix must be folder names of A-Z, a-z, 0-9, ".", "_" and "-" separated by "/", without a leading "/"'),
    ),
    '',
  ),
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key` (MinIO, s3rver, Ceph usually need it). */
  pathStyle: v.optional(v.boolean('pathStyle must be true or false'), false),
  accessKeyId: v.optional(v.pipe(v.string('accessKeyId must be a string'), v.minLength(1, 'accessKeyId must not be empty'))),
  secretAccessKey: v.optional(v.pipe(v.string('secretAccessKey must be a string'), v.minLength(1, 'secretAccessKey must not be empty'))),
  sessionToken: v.optional(v.string('sessionToken must be a string')),
  /** Where images are publicly served from (a CDN in front of the bucket); the object key is appended. */
  publicBaseUrl: v.optional(httpUrl('publicBaseUrl')),
  /** Bodies of `put` larger than this go up as a multipart upload of parts this size. */
  partBytes: v.optional(
    v.pipe(v.number('partBytes must be a number'), v.integer('partBytes must be an integer'), v.minValue(5 * MiB, 'partBytes must be at least 5 MiB (the S3 minimum part size)')),
    8 * MiB,
  ),
  /** How long one request to the store may take before it fails, in ms (a download's body aside). */
  requestTimeoutMs: v.optional(v.pipe(v.number('requestTimeoutMs must be a number'), v.integer(), v.minValue(1, 'requestTimeoutMs must be positive')), 30_000),
  /** The marketplace's clock: presigned URLs are dated by it. Default: system time. */
  clock: v.optional(v.custom<ClockPort>((value) => typeof (value as ClockPort | undefined)?.now === 'function', 'clock must have a now() method')),
  /** The fetch to reach the store with. Default: the global fetch. */
  fetch: v.optional(v.custom<typeof fetch>((value) => typeof value === 'function', 'fetch must be a function')),
  /** Where AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and AWS_REGION are read. Default: process.env where there is one. */
  env: v.optional(v.record(v.string(), v.optional(v.string()))),
});

export type S3BlobsOptions = v.InferInput<typeof OptionsSchema>;

export interface S3Settings {
  bucket: string;
  region: string;
  /** The endpoint's origin and path, without a trailing slash. */
  endpoint: URL;
  prefix: string;
  pathStyle: boolean;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  publicBaseUrl: string | null;
  partBytes: number;
  requestTimeoutMs: number;
  clock: ClockPort;
  fetch: typeof fetch;
}

const where = 'marketkit s3Blobs';

function processEnv(): Record<string, string | undefined> {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
}

/** Options validated, with the credentials and region taken from the standard AWS variables when not given. */
export function resolveS3Options(options: S3BlobsOptions): S3Settings {
  const o = parseOptions(OptionsSchema, options, where);
  const env = o.env ?? processEnv();
  if ((o.accessKeyId === undefined) !== (o.secretAccessKey === undefined)) {
    throw new ConfigurationError(where, `give accessKeyId and secretAccessKey together, or neither (then AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are used)`);
  }
  const credentials = o.accessKeyId
    ? { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey!, ...(o.sessionToken ? { sessionToken: o.sessionToken } : {}) }
    : env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) }
      : null;
  if (!credentials) {
    throw new ConfigurationError(where, `no credentials: give accessKeyId and secretAccessKey, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`);
  }
  const region = o.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1';
  const endpoint = new URL(o.endpoint ?? `https://s3.${region}.amazonaws.com`);
  endpoint.pathname = endpoint.pathname.replace(/\/+$/, '');
  endpoint.search = '';
  endpoint.hash = '';
  const prefix = o.prefix === '' || o.prefix.endsWith('/') ? o.prefix : `${o.prefix}/`;
  // A dotted bucket name breaks TLS on virtual-hosted addresses (the certificate covers one level).
  if (!o.pathStyle && o.bucket.includes('.') && endpoint.protocol === 'https:') {
    throw new ConfigurationError(where, `bucket "${o.bucket}" has dots, which virtual-hosted HTTPS addresses cannot carry; set pathStyle: true`);
  }
  return {
    bucket: o.bucket,
    region,
    endpoint,
    prefix,
    pathStyle: o.pathStyle,
    credentials,
    publicBaseUrl: o.publicBaseUrl ? o.publicBaseUrl.replace(/\/+$/, '') : null,
    partBytes: o.partBytes,
    requestTimeoutMs: o.requestTimeoutMs,
    clock: o.clock ?? { now: () => Date.now() },
    fetch: o.fetch ?? ((input, init) => fetch(input, init)),
  };
}
