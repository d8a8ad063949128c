/**
 * Job leases on Redis (adapters/redis/leases.ts), for createMarketplace's `leases` option: the lease
 * port suite on a real, throwaway redis-server, with a second client as the peer (another instance).
 */
import { after } from 'node:test';
import { Redis } from 'ioredis';
import { redisLeases } from '../../adapters/redis/index.js';
import { runLeaseSuite } from '../../conformance/index.js';
import type { LeasePort } from '../../core/ports/leases.js';
import { needs } from '../fixtures/parts.js';
import { startRedis, type RedisServer } from '../fixtures/redis.js';

const { before, test } = needs('redis-server');

let server: RedisServer;
const clients: Redis[] = [];
before(async () => (server = await startRedis()));
after(async () => {
  for (const client of clients) client.disconnect();
  await server?.stop();
});

const client = () => {
  const opened = new Redis(server.url, { maxRetriesPerRequest: 0 });
  clients.push(opened);
  return opened;
};

let runs = 0;
runLeaseSuite<LeasePort & { prefix: string }>({
  test,
  prefix: 'redis: ',
  create: () => {
    // Each test on keys of its own.
    const prefix = `test-${++runs}:`;
    return { prefix, ...redisLeases({ client: client(), prefix }) };
  },
  capabilities: { openPeer: async (leases) => redisLeases({ client: client(), prefix: leases.prefix }) },
});
