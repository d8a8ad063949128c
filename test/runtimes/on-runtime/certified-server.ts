/**
 * MarketKit on the runtime that runs this file, set up for the conformance suite: SQLite on the
 * runtime's own driver and filesystem blobs in a fresh directory, the suite's fixture accounts,
 * short-lived upload URLs (the expiry check waits for one), room in the rate limits, and the
 * runtime's binding as `marketkit serve` chooses it. Prints one JSON line once it serves; a bug
 * (INTERNAL_ERROR) is reported on stderr with a marker the test looks for.
 * Started by test/runtimes/conformance.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { sqliteStorage } from '../../../adapters/sqlite/index.js';
import { fsBlobs } from '../../../adapters/fs/index.js';
import { createMarketplace } from '../../../core/marketplace.js';
import { createFixtureAccounts } from '../../../conformance/fixture-accounts.js';
import { serveOnRuntime } from '../../../cli/runtime-server.js';

const dir = mkdtempSync(join(tmpdir(), 'marketkit-runtime-conformance-'));
const storage = await sqliteStorage({ path: join(dir, 'marketkit.db') });
const room = { limit: 1_000_000, windowSeconds: 60 };
/** The conformance harness's read limit (test/conformance/harness.ts), which its rateLimitProbe exceeds. */
const readLimit = 3000;
const marketplace = createMarketplace({
  storage,
  blobs: fsBlobs({ root: join(dir, 'blobs') }),
  uploadUrlTtlSeconds: 2,
  // Reads are limited as in the conformance harness, so that the rate-limit check can meet a 429.
  rateLimits: { read: { limit: readLimit, windowSeconds: 60 }, write: room, upload: room },
  onError: (error) => console.error('MARKETKIT INTERNAL ERROR:', error),
});
const accounts = await createFixtureAccounts(marketplace);
const running = await serveOnRuntime(marketplace, { port: 0, host: '127.0.0.1' });
process.once('SIGTERM', () => {
  void running
    .close()
    .then(() => storage.close())
    .finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
});
console.log(JSON.stringify({ url: running.url, runtime: running.runtime, driver: storage.driver, ...accounts }));
