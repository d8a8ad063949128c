/**
 * The core alone, without HTTP: an authenticated GET /api/v1/assets/{id} through
 * `marketplace.handle()` on the memory adapters, in process. Its time per request, set beside the
 * REST benchmark's, says how much of a request is the core and how much the binding and node:http.
 *
 * Run: npx tsx bench/core.bench.ts [--requests 50000]
 */
import './help.js';
import { parseArgs } from 'node:util';
import { memoryBlobs, memoryStorage } from '../adapters/memory/index.js';
import { createMarketplace, type CoreRequest } from '../core/index.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '50000' } } });
const requests = Number(values.requests);

const marketplace = createMarketplace({
  storage: memoryStorage(),
  blobs: memoryBlobs(),
  rateLimits: { read: { limit: 1e9, windowSeconds: 60 }, write: { limit: 1e9, windowSeconds: 60 } },
});
const seller = await marketplace.admin.createAccount({ username: 'bench' });
const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 'bench' });
const headers: Record<string, string> = { authorization: `Bearer ${token}`, host: '127.0.0.1' };
const create: CoreRequest = {
  method: 'POST',
  target: '/api/v1/assets',
  header: (name) => headers[name],
  body: (async function* () {
    yield new TextEncoder().encode('{"title":"Castle Pack","slug":"castle-pack"}');
  })(),
};
const id = JSON.parse((await marketplace.handle(create)).body as string).id as string;
const get: CoreRequest = { method: 'GET', target: `/api/v1/assets/${id}`, header: (name) => headers[name], body: null };

for (let i = 0; i < 10_000; i++) await marketplace.handle(get); // warm-up
const started = performance.now();
for (let i = 0; i < requests; i++) await marketplace.handle(get);
const micros = ((performance.now() - started) * 1000) / requests;
console.log(`Core alone (no HTTP), GET /assets/{id} on memory: ${micros.toFixed(1)} µs per request over ${requests} requests`);
