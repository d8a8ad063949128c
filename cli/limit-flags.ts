import * as v from 'valibot';
import type { ConnectionLimits } from '../bindings/limits.js';

/**
 * `marketkit serve`: the limits against slow clients (docs/security.md, "Time limits and
 * connections"). Each flag has an environment variable (the flag wins); left out, the binding's
 * default applies.
 */
export const limitFlags = {
  options: {
    'headers-timeout': { type: 'string' },
    'body-timeout': { type: 'string' },
    'upload-min-rate': { type: 'string' },
    'upload-rate-window': { type: 'string' },
    'keep-alive-timeout': { type: 'string' },
    'max-connections-per-address': { type: 'string' },
    'limit-loopback': { type: 'boolean' },
  },
  help: [
    ['--headers-timeout <s>', 'Seconds a client may take to send its request headers (env MARKETKIT_HEADERS_TIMEOUT; default 10; on Bun, Bun’s own 10 s applies whatever this says).'],
    ['--body-timeout <s>', 'Seconds a JSON body may take to arrive whole; past it 408 (env MARKETKIT_BODY_TIMEOUT; default 30).'],
    ['--upload-min-rate <bytes/s>', 'The least rate of an upload to a signed URL, past which it gets 408 and nothing is kept; 0 turns it off (env MARKETKIT_UPLOAD_MIN_RATE; default 1024).'],
    ['--upload-rate-window <s>', 'The window over which the upload rate is measured (env MARKETKIT_UPLOAD_RATE_WINDOW; default 10).'],
    ['--keep-alive-timeout <s>', 'Seconds an idle keep-alive connection stays open (env MARKETKIT_KEEP_ALIVE_TIMEOUT; default 5).'],
    ['--max-connections-per-address <n>', 'Connections one client address may hold at once; past it 429 at once; 0 for no cap (env MARKETKIT_MAX_CONNECTIONS_PER_ADDRESS; default 64; behind a proxy all clients share its address).'],
    ['--limit-loopback', 'Count loopback clients (127.0.0.1, ::1) against that cap too; off by default, as a proxy on the same host carries every client (env MARKETKIT_LIMIT_LOOPBACK=true).'],
  ] as [string, string][],
  entries: {
    'headers-timeout': v.optional(seconds('headers-timeout')),
    'body-timeout': v.optional(seconds('body-timeout')),
    'upload-min-rate': v.optional(count('upload-min-rate')),
    'upload-rate-window': v.optional(seconds('upload-rate-window')),
    'keep-alive-timeout': v.optional(seconds('keep-alive-timeout')),
    'max-connections-per-address': v.optional(count('max-connections-per-address')),
    'limit-loopback': v.optional(v.union([v.boolean(), v.pipe(v.picklist(['true', 'false', '1', '0'], 'limit-loopback must be true or false'), v.transform((text) => text === 'true' || text === '1'))])),
  },
  /** The values the environment gives, as the command's defaults (a flag overrides each). */
  defaults(env: NodeJS.ProcessEnv): Record<string, string> {
    const variables = {
      'headers-timeout': env.MARKETKIT_HEADERS_TIMEOUT,
      'body-timeout': env.MARKETKIT_BODY_TIMEOUT,
      'upload-min-rate': env.MARKETKIT_UPLOAD_MIN_RATE,
      'upload-rate-window': env.MARKETKIT_UPLOAD_RATE_WINDOW,
      'keep-alive-timeout': env.MARKETKIT_KEEP_ALIVE_TIMEOUT,
      'max-connections-per-address': env.MARKETKIT_MAX_CONNECTIONS_PER_ADDRESS,
      'limit-loopback': env.MARKETKIT_LIMIT_LOOPBACK,
    };
    return Object.fromEntries(Object.entries(variables).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
  },
  /** The parsed flags as the bindings' options. */
  toLimits(values: {
    'headers-timeout'?: number;
    'body-timeout'?: number;
    'upload-min-rate'?: number;
    'upload-rate-window'?: number;
    'keep-alive-timeout'?: number;
    'max-connections-per-address'?: number;
    'limit-loopback'?: boolean;
  }): ConnectionLimits {
    const limits: ConnectionLimits = {};
    if (values['headers-timeout'] !== undefined) limits.headersTimeoutSeconds = values['headers-timeout'];
    if (values['body-timeout'] !== undefined) limits.bodyTimeoutSeconds = values['body-timeout'];
    if (values['upload-min-rate'] !== undefined) limits.uploadMinBytesPerSecond = values['upload-min-rate'];
    if (values['upload-rate-window'] !== undefined) limits.uploadRateWindowSeconds = values['upload-rate-window'];
    if (values['keep-alive-timeout'] !== undefined) limits.keepAliveTimeoutSeconds = values['keep-alive-timeout'];
    if (values['max-connections-per-address'] !== undefined) limits.maxConnectionsPerAddress = values['max-connections-per-address'];
    if (values['limit-loopback'] !== undefined) limits.limitLoopback = values['limit-loopback'];
    return limits;
  },
} as const;

function seconds(flag: string) {
  return v.pipe(
    v.union([v.string(), v.number()]),
    v.transform(Number),
    v.check((n) => Number.isFinite(n) && n > 0 && n <= 86_400, `${flag} must be a number of seconds above 0 (at most 86400)`),
  );
}

function count(flag: string) {
  return v.pipe(
    v.union([v.string(), v.number()]),
    v.transform(Number),
    v.check((n) => Number.isSafeInteger(n) && n >= 0, `${flag} must be a whole number, 0 or more`),
  );
}
