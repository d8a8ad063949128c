import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { ConfigurationError, StorageUnavailableError } from '../../core/errors.js';
import { parseOptions } from '../../core/options.js';
import type { LimitClass, RateDecision, RateLimiterPort } from '../../core/ports/rate-limit.js';
import { limitClasses, slidingLimits, whenStoreDown, type RateLimits, type SlidingLimit } from '../../core/rate-limits.js';

const who = 'marketkit redisRateLimiter';

const limitSchema = v.object({
  limit: v.pipe(v.number('limit must be a number'), v.minValue(0, 'limit must be 0 or more')),
  windowSeconds: v.pipe(v.number('windowSeconds must be a number'), v.gtValue(0, 'windowSeconds must be more than 0')),
});
const ms = (name: string) => v.pipe(v.number(`${name} must be a number`), v.integer(`${name} must be a whole number`), v.minValue(1, `${name} must be 1 or more`));

/**
 * What the limiter needs of a Redis client given as `client`: an ioredis `Redis` (or `Cluster`:
 * every script touches one key) has it.
 */
export interface RedisClientLike {
  evalsha(sha1: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
  get(key: string): Promise<string | null>;
}

const OptionsSchema = v.object({
  /** `redis://[:password@]host:port[/db]` or `rediss://` (TLS): the limiter opens an ioredis client of its own. */
  url: v.optional(v.pipe(v.string('url must be a redis:// URL'), v.regex(/^rediss?:\/\//, 'url must start with redis:// or rediss://'))),
  /** An ioredis client of the application's, instead of url: used as it is, never closed by close(). */
  client: v.optional(
    v.custom<RedisClientLike>((c) => ['evalsha', 'eval', 'get'].every((m) => typeof (c as Record<string, unknown> | null)?.[m] === 'function'), 'client must be an ioredis client (Redis or Cluster)'),
  ),
  limits: v.optional(v.partial(v.object(Object.fromEntries(limitClasses.map((c) => [c, limitSchema])) as Record<LimitClass, typeof limitSchema>))),
  /**
   * When Redis cannot be reached: 'closed' (the default) refuses the request, which the core
   * answers with 503 SERVICE_UNAVAILABLE and Retry-After; 'open' lets it through uncounted.
   */
  onStoreDown: v.optional(v.picklist(['closed', 'open'], "onStoreDown must be 'closed' or 'open'"), 'closed'),
  /** Put before every key the limiter writes (`<prefix><class>:<key>`), to share a Redis with others. */
  prefix: v.optional(v.string('prefix must be a string'), 'marketkit:rate:'),
  /** How long a command may take before it fails as unavailable (the limiter's own client). */
  commandTimeoutMs: v.optional(ms('commandTimeoutMs'), 2_000),
  /** How long connecting may take (the limiter's own client). */
  connectTimeoutMs: v.optional(ms('connectTimeoutMs'), 2_000),
  /**
   * With onStoreDown 'open', told when Redis cannot be reached (at most once a minute while it
   * lasts: nothing else tells of it). With 'closed' the failure goes to the core, whose onError hears it.
   */
  onError: v.optional(v.function('onError must be a function')),
});

export type RedisRateLimiterOptions = Omit<v.InferInput<typeof OptionsSchema>, 'onError' | 'client'> & {
  client?: RedisClientLike;
  onError?: (error: Error) => void;
};

export interface RedisRateLimiter extends RateLimiterPort {
  /** Closes the limiter's own client (a given `client` is left open). */
  close(): Promise<void>;
}

/**
 * Redis cannot be reached (down, restarting, loading, a lost connection, a timeout, a replica
 * that cannot write). Nothing was counted. A StorageUnavailableError of the core: the client gets
 * 503 SERVICE_UNAVAILABLE with Retry-After, never this message.
 */
export class RedisUnavailable extends StorageUnavailableError {
  constructor(where: string, cause: unknown) {
    const detail = cause instanceof Error ? cause.message || cause.name : String(cause);
    super(`${who}: the Redis server at ${where} is unavailable (${detail}); is it running and reachable?`, { cause });
    this.name = 'RedisUnavailable';
  }
}

/** ioredis is not installed. */
export class RedisDriverUnavailable extends Error {
  constructor() {
    super(`${who}: the Redis rate limiter needs the ioredis package: run "npm install ioredis"`);
    this.name = 'RedisDriverUnavailable';
  }
}

/** Slack for floating-point sums, as core/rate-limits.ts has it. */
const epsilon = 1e-6;

/**
 * One take, atomically (a script runs alone on the server). The key holds "<level> <at>", as the
 * core keeps a bucket: units in use and when (ms of the core's clock), written with %.17g so that
 * every double reads back exactly. The units in use at ARGV[1] are computed as the core computes
 * them, in the same order of operations; one is added only if that stays within the limit, and a
 * refused take writes nothing. Returns the units in use before the take, as a string (a Lua number
 * would come back truncated to an integer). The key expires once drained, by the server's clock,
 * plus ARGV[5] ms of slack: a clock a little behind still finds its units.
 */
export const takeScript = `
local now = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local epsilon = tonumber(ARGV[4])
local slack = tonumber(ARGV[5])
local level, at = 0, now
local stored = redis.call('GET', KEYS[1])
if stored then
  local space = string.find(stored, ' ', 1, true)
  local bucketLevel = tonumber(string.sub(stored, 1, space - 1))
  at = tonumber(string.sub(stored, space + 1))
  level = bucketLevel - math.max(0, now - at) * rate
  if not (level > epsilon) then level = 0 end
end
if level + 1 <= limit + epsilon then
  local after = level + 1
  local newAt = math.max(at, now)
  local ttl = math.min(math.ceil(newAt - now + after / rate + slack), 1e15)
  redis.call('SET', KEYS[1], string.format('%.17g %.17g', after, newAt), 'PX', string.format('%.0f', ttl))
end
return string.format('%.17g', level)
`;

const takeSha = createHash('sha1').update(takeScript).digest('hex');

/** Server replies that mean "cannot count now" rather than a mistake of ours. */
const downReplies = /^(LOADING|READONLY|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|OOM|NOREPLICAS|MISCONF)\b/;

/** True when a failed command says Redis is down or unreachable; a reply error (a wrong type, a script error) is not. */
export function isRedisDown(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ReplyError') return downReplies.test(error.message);
  return true;
}

const decision = ({ allowed, limit, remaining, resetSeconds, retryAfterSeconds }: RateDecision): RateDecision => ({ allowed, limit, remaining, resetSeconds, retryAfterSeconds });

/** `host:port` of a redis URL, for messages (never the password). */
function describe(url: string | undefined): string {
  if (!url) return '(the given client)';
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || 6379}`;
  } catch {
    // Only for messages: a url that does not parse is named without its parts (the client says what is wrong with it).
    return '(the given url)';
  }
}

/** A client of its own on `config.url` (ioredis, loaded now), connected; refused at once while Redis is down. */
async function connectOwnClient(config: v.InferOutput<typeof OptionsSchema>, where: string): Promise<{ client: RedisClientLike; close: () => Promise<void> }> {
  type IoRedis = typeof import('ioredis');
  let Redis: IoRedis['Redis'];
  try {
    // ioredis is CommonJS: its exports may come as the default export of the ESM namespace.
    const mod = (await import('ioredis')) as IoRedis & { default: IoRedis };
    Redis = mod.Redis ?? mod.default.Redis;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new RedisDriverUnavailable();
  }
  const own = new Redis(config.url!, {
    lazyConnect: true,
    // Fail at once while disconnected (queued commands would hold requests for the whole outage).
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: config.commandTimeoutMs,
    connectTimeout: config.connectTimeoutMs,
    // Reconnect for ever, at most a second apart: the limiter answers again as soon as Redis is back.
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  });
  // Connection errors are also the failures of the commands they fail; unheard, ioredis prints them.
  own.on('error', () => {});
  try {
    await own.connect();
  } catch (error) {
    own.disconnect();
    throw new RedisUnavailable(where, error);
  }
  return {
    client: own as unknown as RedisClientLike,
    close: async () => {
      await own.quit().catch(() => own.disconnect());
    },
  };
}

/**
 * Sliding-window rate limits (GCRA, exactly as core/rate-limits.ts computes them) kept in Redis
 * (or Valkey), so that every instance of a marketplace shares one budget per key. A take is one
 * Lua script (EVALSHA, EVAL when the server does not have it yet): of concurrent takes past the
 * limit, on any instance, none is allowed, and a refused take counts nothing. A peek is one GET.
 * Time is always the `nowMs` the core passes (its clock port), never the server's: the testing
 * kit's clock moves the windows. Only the expiry of drained keys follows the server's clock.
 */
export async function redisRateLimiter(options: RedisRateLimiterOptions): Promise<RedisRateLimiter> {
  const config = parseOptions(OptionsSchema, options, who);
  if ((config.url === undefined) === (config.client === undefined)) {
    throw new ConfigurationError(who, 'give either url (redis://host:6379) or client (an ioredis client), not both and not neither');
  }
  const byClass = slidingLimits(config.limits as Partial<RateLimits> | undefined);
  const onError = config.onError as ((error: Error) => void) | undefined;
  const where = describe(config.url);
  const prefix = config.prefix;

  const { client, close } = config.client ? { client: config.client as RedisClientLike, close: async () => {} } : await connectOwnClient(config, where);

  const downPolicy = whenStoreDown(config.onStoreDown, onError);
  /** A failure of Redis: thrown as unavailable ('closed', the core answers 503) or let through ('open'). */
  const storeDown = (error: unknown, limit: SlidingLimit, nowMs: number): RateDecision => {
    if (!isRedisDown(error)) throw error;
    return downPolicy(new RedisUnavailable(where, error), limit, nowMs);
  };

  const keyOf = (limitClass: LimitClass, key: string) => `${prefix}${limitClass}:${key}`;

  const runTake = async (redisKey: string, args: (string | number)[]): Promise<unknown> => {
    try {
      return await client.evalsha(takeSha, 1, redisKey, ...args);
    } catch (error) {
      // A server that does not have the script yet (new, restarted, SCRIPT FLUSH): send it whole; it keeps it.
      if (!(error instanceof Error && error.name === 'ReplyError' && error.message.startsWith('NOSCRIPT'))) throw error;
      return client.eval(takeScript, 1, redisKey, ...args);
    }
  };

  return {
    async take(key, limitClass, nowMs) {
      const limit = byClass[limitClass];
      const fresh = limit.decide(0, true);
      // A limit below one unit refuses every take: nothing to count, nothing to ask.
      if (!fresh.allowed) return decision(fresh);
      let before: unknown;
      try {
        // Numbers as JavaScript writes them (the shortest string that reads back as the same double).
        before = await runTake(keyOf(limitClass, key), [String(nowMs), String(limit.rate), String(limit.limit), String(epsilon), String(limit.windowMs)]);
      } catch (error) {
        return storeDown(error, limit, nowMs);
      }
      return decision(limit.decide(Number(before), true));
    },
    async peek(key, limitClass, nowMs) {
      const limit = byClass[limitClass];
      let stored: string | null;
      try {
        stored = await client.get(keyOf(limitClass, key));
      } catch (error) {
        return storeDown(error, limit, nowMs);
      }
      if (stored === null) return limit.untouched;
      const space = stored.indexOf(' ');
      const bucket = { level: Number(stored.slice(0, space)), at: Number(stored.slice(space + 1)) };
      return decision(limit.decide(limit.levelAt(bucket, nowMs), false));
    },
    close: () => close(),
  };
}
