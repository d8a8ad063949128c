/**
 * The port suites that need servers: the storage and studio suites on PostgreSQL (postgresStorage,
 * postgresStudio over node-postgres) and the rate-limiter suite on the PostgreSQL and Redis
 * limiters (ioredis). server-port-suites.ts registers them under `bun test` and `deno test`;
 * test/runtimes/port-suites.test.ts registers them with a `test` that only collects the names,
 * to know every test that must pass on each runtime.
 */
import type { TestFunction } from '../../../conformance/ports/index.js';
import { postgresRateLimiter, postgresStorage, postgresStudio, type PostgresRateLimiter, type PostgresStorage, type PostgresStudio } from '../../../adapters/postgres/index.js';
import { redisRateLimiter, type RedisRateLimiter } from '../../../adapters/redis/index.js';
import { runRateLimitSuite, runStorageSuite, runStudioSuite } from '../../../conformance/ports/index.js';
import { createDatabase } from '../../fixtures/postgres-database.js';

export interface Servers {
  /** The cluster's maintenance database, as superuser: every store gets a database of its own on it. */
  postgresUrl: string;
  redisUrl: string;
}

/** Registers the suites with `test`; nothing connects before a test runs. */
export function registerServerSuites(test: TestFunction, { postgresUrl, redisUrl }: Servers): void {
  // Each store is a copy of one database migrated once, as test/ports/storage-postgres.test.ts makes them.
  const storageUrls = new WeakMap<PostgresStorage, string>();
  const openStorage = async (url: string) => {
    const storage = await postgresStorage({ url, poolSize: 4 });
    storageUrls.set(storage, url);
    return storage;
  };
  let migratedStorage: Promise<string> | undefined;
  runStorageSuite({
    test,
    prefix: 'runtime postgres ',
    async create() {
      migratedStorage ??= (async () => {
        const url = await createDatabase(postgresUrl);
        await (await postgresStorage({ url })).close();
        return url;
      })();
      return openStorage(await createDatabase(postgresUrl, { template: await migratedStorage }));
    },
    dispose: (storage) => storage.close(),
    capabilities: { openPeer: (storage) => openStorage(storageUrls.get(storage)!) },
  });

  const studioUrls = new WeakMap<PostgresStudio, string>();
  const openStudio = async (url: string) => {
    const studio = await postgresStudio({ url, poolSize: 4 });
    studioUrls.set(studio, url);
    return studio;
  };
  let migratedStudio: Promise<string> | undefined;
  runStudioSuite({
    test,
    prefix: 'runtime postgres ',
    async create() {
      migratedStudio ??= (async () => {
        const url = await createDatabase(postgresUrl);
        await (await postgresStudio({ url })).close();
        return url;
      })();
      return openStudio(await createDatabase(postgresUrl, { template: await migratedStudio }));
    },
    dispose: (studio) => studio.close(),
    capabilities: { openPeer: (studio) => openStudio(studioUrls.get(studio)!) },
  });

  // The limiter suite uses keys of its own in every test: one database and one Redis serve it all.
  let limiterDatabase: Promise<string> | undefined;
  const limiterUrl = () => (limiterDatabase ??= createDatabase(postgresUrl));
  runRateLimitSuite<PostgresRateLimiter>({
    test,
    prefix: 'runtime postgres ',
    create: async (limits) => postgresRateLimiter({ url: await limiterUrl(), limits, poolSize: 4 }),
    dispose: (limiter) => limiter.close(),
    capabilities: { openPeer: async (_limiter, limits) => postgresRateLimiter({ url: await limiterUrl(), limits, poolSize: 4 }) },
  });

  runRateLimitSuite<RedisRateLimiter>({
    test,
    prefix: 'runtime redis ',
    create: (limits) => redisRateLimiter({ url: redisUrl, limits }),
    dispose: (limiter) => limiter.close(),
    capabilities: { openPeer: (_limiter, limits) => redisRateLimiter({ url: redisUrl, limits }) },
  });
}
