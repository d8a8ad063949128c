import * as v from 'valibot';
import { defaultRateLimits, type RateLimit, type RateLimits } from '../core/rate-limits.js';
import type { LimitClass } from '../core/ports/rate-limit.js';

/**
 * `marketkit serve`: the rate limits (docs/security.md, "Rate limits"), each as `<limit>/<seconds>`
 * (`--rate-limit-write 300/60`: 300 requests a sliding minute). Each flag has an environment
 * variable (the flag wins); left out, the library's default applies.
 */
const classes = [
  { flag: 'rate-limit-read', variable: 'MARKETKIT_RATE_LIMIT_READ', limit: 'read', who: 'Reads (GET) per token' },
  { flag: 'rate-limit-write', variable: 'MARKETKIT_RATE_LIMIT_WRITE', limit: 'write', who: 'Writes (POST, PATCH, DELETE) per token' },
  { flag: 'rate-limit-upload', variable: 'MARKETKIT_RATE_LIMIT_UPLOAD', limit: 'upload', who: 'Upload URLs and confirmations per token' },
  { flag: 'rate-limit-mcp-unauthenticated', variable: 'MARKETKIT_RATE_LIMIT_MCP_UNAUTHENTICATED', limit: 'mcpUnauthenticated', who: 'MCP calls without a token (initialize, tools/list, ...) per client address' },
  { flag: 'rate-limit-admin', variable: 'MARKETKIT_RATE_LIMIT_ADMIN', limit: 'admin', who: 'Admin surface calls per service key' },
] as const satisfies readonly { flag: string; variable: string; limit: LimitClass; who: string }[];

type Flag = (typeof classes)[number]['flag'];

const spelled = (limit: RateLimit) => `${limit.limit}/${limit.windowSeconds}`;

function limitValue(flag: string) {
  return v.pipe(
    v.string(),
    v.trim(),
    v.regex(/^\d{1,9}\/\d{1,7}s?$/, `${flag} must be <limit>/<seconds>, such as 300/60 (300 requests a sliding minute)`),
    v.transform((text): RateLimit => {
      const [limit, seconds] = text.replace(/s$/, '').split('/').map(Number) as [number, number];
      return { limit, windowSeconds: seconds };
    }),
    v.check((rate) => rate.limit > 0 && rate.windowSeconds > 0, `${flag} must have a limit and a window above 0`),
  );
}

export const rateLimitFlags = {
  options: Object.fromEntries(classes.map(({ flag }) => [flag, { type: 'string' as const }])) as Record<Flag, { type: 'string' }>,
  help: classes.map(({ flag, variable, limit, who }): [string, string] => [
    `--${flag} <n/s>`,
    `${who}: n in any s seconds, a sliding window (env ${variable}; default ${spelled(defaultRateLimits[limit])}).`,
  ]),
  entries: Object.fromEntries(classes.map(({ flag }) => [flag, v.optional(limitValue(flag))])) as Record<Flag, v.OptionalSchema<ReturnType<typeof limitValue>, undefined>>,
  /** The values the environment gives, as the command's defaults (a flag overrides each). */
  defaults(env: NodeJS.ProcessEnv): Record<string, string> {
    return Object.fromEntries(classes.flatMap(({ flag, variable }) => (env[variable] ? [[flag, env[variable]!]] : [])));
  },
  /** The limits the flags set, for createMarketplace and the limiters (`failedAuth` from --failed-auth-limit). */
  toLimits(values: Partial<Record<Flag, RateLimit>> & { 'failed-auth-limit'?: number | undefined }): Partial<RateLimits> {
    const limits: Partial<RateLimits> = {};
    for (const { flag, limit } of classes) if (values[flag]) limits[limit] = values[flag];
    if (values['failed-auth-limit']) limits.failedAuth = { limit: values['failed-auth-limit'], windowSeconds: 60 };
    return limits;
  },
  /** The banner's line: every limit in force. */
  describe(limits: Partial<RateLimits>): string {
    const effective = { ...defaultRateLimits, ...limits };
    const per = (limit: LimitClass) => `${spelled(effective[limit])} s`;
    return `read ${per('read')}, write ${per('write')}, upload ${per('upload')} per token; failed authentications ${per('failedAuth')}, MCP without a token ${per('mcpUnauthenticated')} per address; admin ${per('admin')}`;
  },
};
