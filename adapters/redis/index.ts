export { redisRateLimiter, RedisUnavailable, RedisDriverUnavailable, isRedisDown, type RedisRateLimiter, type RedisRateLimiterOptions, type RedisClientLike } from './rate-limiter.js';
export { redisLeases, type RedisLeaseClient } from './leases.js';
