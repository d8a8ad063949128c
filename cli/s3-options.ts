import * as v from 'valibot';
import { s3Blobs, type S3Blobs } from '../adapters/s3/index.js';
import { optionProblems } from '../core/options.js';
import { UsageError } from './args.js';
import { nodeFetch } from '../bindings/node/client/streaming-fetch.js';
import { currentRuntime } from './runtime-server.js';

/**
 * `marketkit serve --blobs s3`: where the S3 settings come from. Each flag has an environment
 * variable (the flag wins); the credentials come from the environment only, never from flags,
 * which other users of the machine can read in the process list.
 */
export const s3Flags = {
  options: {
    blobs: { type: 'string' },
    's3-endpoint': { type: 'string' },
    's3-region': { type: 'string' },
    's3-bucket': { type: 'string' },
    's3-prefix': { type: 'string' },
    's3-path-style': { type: 'boolean' },
    's3-public-url': { type: 'string' },
  },
  help: [
    ['--blobs <fs|s3|memory>', 'Where uploads go (env MARKETKIT_BLOBS; default fs in the data directory, memory with --memory).'],
    ['--s3-bucket <name>', 'With --blobs s3: the bucket (env MARKETKIT_S3_BUCKET; required).'],
    ['--s3-endpoint <url>', 'The S3 API address, for MinIO, R2, Ceph... (env MARKETKIT_S3_ENDPOINT; default AWS S3).'],
    ['--s3-region <name>', 'The region (env MARKETKIT_S3_REGION, else AWS_REGION; default us-east-1).'],
    ['--s3-prefix <path>', 'Key prefix for every object, such as marketkit/ (env MARKETKIT_S3_PREFIX).'],
    ['--s3-path-style', 'Address objects as endpoint/bucket/key, as MinIO needs (env MARKETKIT_S3_PATH_STYLE=true).'],
    ['--s3-public-url <url>', 'A public (CDN) base URL serving the bucket, for image URLs (env MARKETKIT_S3_PUBLIC_URL).'],
  ] as [string, string][],
  /** The flags as the command's schema takes them; s3BlobsFromCli validates them. */
  entries: {
    blobs: v.optional(v.string()),
    's3-endpoint': v.optional(v.string()),
    's3-region': v.optional(v.string()),
    's3-bucket': v.optional(v.string()),
    's3-prefix': v.optional(v.string()),
    's3-path-style': v.optional(v.boolean()),
    's3-public-url': v.optional(v.string()),
  },
} as const;

const optionalUrl = (flag: string, variable: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.url(`${flag} (${variable}) must be an absolute http(s) URL such as http://127.0.0.1:9000`),
      v.regex(/^https?:\/\//i, `${flag} (${variable}) must be an http or https URL`),
    ),
  );

const S3Schema = v.object({
  bucket: v.pipe(
    v.string('--s3-bucket (or MARKETKIT_S3_BUCKET) is required with --blobs s3'),
    v.regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, '--s3-bucket (MARKETKIT_S3_BUCKET) must be an S3 bucket name: 3-63 characters of a-z, 0-9, "." and "-"'),
  ),
  endpoint: optionalUrl('--s3-endpoint', 'MARKETKIT_S3_ENDPOINT'),
  region: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9-]{1,40}$/, '--s3-region (MARKETKIT_S3_REGION) must be a region name such as us-east-1'))),
  prefix: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^(?:[A-Za-z0-9._-]+\/?)*$/, '--s3-prefix (MARKETKIT_S3_PREFIX) must be folder names of A-Z, a-z, 0-9, ".", "_", "-" joined by "/", without a leading "/"'),
    ),
  ),
  pathStyle: v.boolean(),
  publicBaseUrl: optionalUrl('--s3-public-url', 'MARKETKIT_S3_PUBLIC_URL'),
});

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());

export type BlobsKind = 'fs' | 's3' | 'memory';

/** Which blob store `--blobs` (or MARKETKIT_BLOBS) names; null when neither does. */
export function blobsKind(flag: unknown, env: NodeJS.ProcessEnv): BlobsKind | null {
  const value = (typeof flag === 'string' ? flag : undefined) ?? (env.MARKETKIT_BLOBS || undefined);
  if (value === undefined) return null;
  if (value === 'fs' || value === 's3' || value === 'memory') return value;
  throw new UsageError(`--blobs (MARKETKIT_BLOBS) must be fs, s3 or memory, not "${value}"`);
}

/** Throws when an --s3-* flag is given without --blobs s3: it would be ignored without a word. */
export function refuseStrayS3Flags(values: Record<string, unknown>, kind: BlobsKind | null): void {
  if (kind === 's3') return;
  const stray = Object.keys(values).filter((name) => name.startsWith('s3-') && values[name] !== undefined);
  if (stray.length > 0) throw new UsageError(`${stray.map((name) => `--${name}`).join(', ')} only apply with --blobs s3`);
}

/** The S3 blob store from the flags and the environment; a UsageError that names the flag or variable to fix. */
export function s3BlobsFromCli(values: Record<string, unknown>, env: NodeJS.ProcessEnv): S3Blobs {
  const flag = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const pick = (name: string, variable: string) => flag(name) ?? (env[variable] || undefined);
  const parsed = optionProblems(S3Schema, {
    bucket: pick('s3-bucket', 'MARKETKIT_S3_BUCKET'),
    endpoint: pick('s3-endpoint', 'MARKETKIT_S3_ENDPOINT'),
    region: pick('s3-region', 'MARKETKIT_S3_REGION') ?? (env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined),
    prefix: pick('s3-prefix', 'MARKETKIT_S3_PREFIX'),
    pathStyle: values['s3-path-style'] === true || truthy(env.MARKETKIT_S3_PATH_STYLE),
    publicBaseUrl: pick('s3-public-url', 'MARKETKIT_S3_PUBLIC_URL'),
  });
  if ('problems' in parsed) throw new UsageError(parsed.problems.map((problem) => problem.replace(/^\w+: /, '')).join('; '));
  const accessKeyId = env.MARKETKIT_S3_ACCESS_KEY_ID || env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.MARKETKIT_S3_SECRET_ACCESS_KEY || env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) {
    throw new UsageError('--blobs s3 needs credentials: set MARKETKIT_S3_ACCESS_KEY_ID and MARKETKIT_S3_SECRET_ACCESS_KEY (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)');
  }
  const sessionToken = env.MARKETKIT_S3_ACCESS_KEY_ID ? env.MARKETKIT_S3_SESSION_TOKEN : env.AWS_SESSION_TOKEN;
  const s = parsed.output;
  return s3Blobs({
    bucket: s.bucket,
    ...(s.endpoint ? { endpoint: s.endpoint } : {}),
    ...(s.region ? { region: s.region } : {}),
    ...(s.prefix ? { prefix: s.prefix } : {}),
    pathStyle: s.pathStyle,
    ...(s.publicBaseUrl ? { publicBaseUrl: s.publicBaseUrl } : {}),
    accessKeyId,
    secretAccessKey,
    ...(sessionToken ? { sessionToken } : {}),
    env: {},
    // On Node, requests with a body go through node:http: undici would copy each part into its
    // Request and gives up on an answer after 300 s (a completion of a large object on a slow store).
    ...(currentRuntime() === 'node' ? { fetch: nodeFetch } : {}),
  });
}

/** Where the objects go, for the banner: `s3://bucket/prefix at endpoint`. */
export function describeS3(blobs: S3Blobs): string {
  const { bucket, prefix, endpoint } = blobs.settings;
  return `s3://${bucket}/${prefix} at ${endpoint.href.replace(/\/$/, '')}`;
}

/** Fails the start when the bucket does not answer, with what to check. */
export async function checkS3Reachable(blobs: S3Blobs): Promise<void> {
  try {
    await blobs.ping();
  } catch (error) {
    throw new UsageError(
      `the S3 bucket ${describeS3(blobs)} did not answer (${error instanceof Error ? error.message.replace(/^marketkit s3Blobs: /, '') : String(error)}). Check the endpoint, the bucket name, the credentials and --s3-path-style.`,
    );
  }
}
