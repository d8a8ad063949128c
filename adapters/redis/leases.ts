import type { LeasePort } from '../../core/ports/leases.js';

/** What the lease port needs of a Redis client: an ioredis `Redis` (or `Cluster`: one key per script) has it. */
export interface RedisLeaseClient {
  eval(script: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/**
 * Taken when free, expired, or already this holder's, in one script: Redis runs a script alone, so
 * two takers cannot both win. The expiry is the caller's clock (`nowMs`, the core's clock port),
 * not Redis's, as the port says; the key never expires by itself (one small hash per job name).
 */
const take = `
local holder = redis.call('HGET', KEYS[1], 'holder')
local untilMs = tonumber(redis.call('HGET', KEYS[1], 'until_ms') or '0')
if holder and holder ~= ARGV[1] and untilMs > tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'until_ms', ARGV[3])
return 1`;

/**
 * Job leases (core/ports/leases.ts) on Redis, for createMarketplace's `leases` option: the timed
 * jobs of instances whose records live in different stores, or a store without leases, take turns
 * through one Redis. `client` is the application's ioredis client, used as it is (never closed
 * here); `prefix` is put before each job's key.
 */
export function redisLeases({ client, prefix = 'marketkit:lease:' }: { client: RedisLeaseClient; prefix?: string }): LeasePort {
  return {
    async tryLease(name, holder, nowMs, ttlMs) {
      return Number(await client.eval(take, 1, `${prefix}${name}`, holder, nowMs, nowMs + ttlMs)) === 1;
    },
  };
}
