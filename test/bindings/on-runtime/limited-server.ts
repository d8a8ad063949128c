/**
 * MarketKit on the runtime that runs this file, served by that runtime's binding as `marketkit
 * serve` chooses it, with the limits against slow clients given as JSON in MARKETKIT_TEST_LIMITS
 * (small ones, so that the test runs in seconds). With MARKETKIT_TEST_BINDING=deno (on Deno) it is
 * served by marketkit/bindings/deno (Deno.serve) instead of serve's choice there (Deno's node:http). Memory adapters, an approved seller and its
 * token. `GET /__client-address` answers the CoreRequest.clientAddress the binding filled in;
 * `/__slow?ms=N` reads the body, then waits N ms before it answers.
 * Prints one JSON line once it serves. Started by test/bindings/slow-clients.test.ts.
 */
import process from 'node:process';
import { memoryBlobs, memoryStorage, memoryStudio } from '../../../adapters/memory/index.js';
import { createMarketplace, type Marketplace } from '../../../core/marketplace.js';
import { scopes } from '../../../core/domain/scopes.js';
import { serveOnRuntime } from '../../../cli/runtime-server.js';

const room = { limit: 1_000_000, windowSeconds: 60 };
const marketplace = createMarketplace({
  storage: memoryStorage(),
  blobs: memoryBlobs(),
  studio: memoryStudio(),
  rateLimits: { read: room, write: room, upload: room },
  onError: (error) => console.error('MARKETKIT INTERNAL ERROR:', error),
});
const seller = await marketplace.admin.createAccount({ username: 'slow-link-seller', seller_status: 'approved', payouts_connected: true });
const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 'test', scopes: [...scopes] });

const observed: Marketplace = {
  ...marketplace,
  handle: async (request) => {
    if (request.target === '/__client-address') {
      return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientAddress: request.clientAddress ?? null }) };
    }
    // A server that reads the body, then works for `ms` before it answers (a store's long copy).
    const slow = /^\/__slow\?ms=(\d+)$/.exec(request.target);
    if (slow) {
      let bytes = 0;
      if (request.body) for await (const chunk of request.body) bytes += chunk.byteLength;
      await new Promise((resolve) => setTimeout(resolve, Number(slow[1])));
      return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ read: bytes, waited: Number(slow[1]) }) };
    }
    return marketplace.handle(request);
  },
};
const limits = JSON.parse(process.env.MARKETKIT_TEST_LIMITS ?? '{}');
const options = { port: 0, host: '127.0.0.1', ...limits };
const running =
  process.env.MARKETKIT_TEST_BINDING === 'deno'
    ? { ...(await (await import('../../../bindings/deno/index.js')).serve(observed, options)), runtime: 'deno' }
    : await serveOnRuntime(observed, options);
process.once('SIGTERM', () => {
  void running.close().finally(() => process.exit(0));
});
console.log(JSON.stringify({ url: running.url, runtime: running.runtime, token }));
