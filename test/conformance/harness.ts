/**
 * Our own server for the conformance suite: the Node binding over memory or SQLite, with the
 * suite's fixture accounts, real time (the suite is black-box: it can only wait for an upload URL
 * to expire), short-lived upload URLs, and optionally a wrapper that breaks one rule (a mutant).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import { sqliteStorage } from '../../adapters/sqlite/index.js';
import { serve } from '../../bindings/node/index.js';
import { createMarketplace, type Marketplace } from '../../core/marketplace.js';
import type { CoreRequest, CoreResponse } from '../../core/pipeline/request.js';
import type { BlobPort } from '../../core/ports/blobs.js';
import { createFixtureAccounts, type FixtureAccounts } from '../../conformance/fixture-accounts.js';

/** Breaks one rule: gets each request and the real handler, answers instead of it. */
export type Mutant = (request: CoreRequest, real: (request: CoreRequest) => Promise<CoreResponse>, marketplace: Marketplace) => Promise<CoreResponse>;

export interface CertifiedServer extends FixtureAccounts {
  url: string;
  marketplace: Marketplace;
  close(): Promise<void>;
}

/**
 * Upload URLs live this long here, so that the expiry check (which waits up to 5 s by default) can
 * wait for one; long enough that a PUT right after its upload-url never meets it on a busy machine
 * (expiries are whole seconds, so a URL lives 3 to 4 s).
 */
export const uploadUrlTtlSeconds = 4;

/**
 * Read requests per caller and minute here; the suite's rate-limit check is given a probe well above
 * it: the window slides, so the budget comes back (50 a second here) while the probe spends it.
 */
export const readLimit = 3000;
export const rateLimitProbe = readLimit * 2;

export async function startCertifiedServer(options: { storage?: 'memory' | 'sqlite'; mutant?: Mutant; blobs?: BlobPort } = {}): Promise<CertifiedServer> {
  let dir: string | null = null;
  let storage: Awaited<ReturnType<typeof sqliteStorage>> | undefined;
  if (options.storage === 'sqlite') {
    dir = mkdtempSync(join(tmpdir(), 'marketkit-conformance-'));
    storage = await sqliteStorage({ path: join(dir, 'marketkit.db') });
  }
  const internalErrors: unknown[] = [];
  const marketplace = createMarketplace({
    storage: storage ?? memoryStorage(),
    blobs: options.blobs ?? memoryBlobs(),
    uploadUrlTtlSeconds,
    // Reads are limited low enough for the rate-limit check to reach the limit in a moment (it spends
    // the read-only token's budget); a whole run of the suite stays far below it for every other caller.
    rateLimits: { read: { limit: readLimit, windowSeconds: 60 }, write: { limit: 1_000_000, windowSeconds: 60 }, upload: { limit: 1_000_000, windowSeconds: 60 } },
    onError: (error) => {
      console.error('marketkit internal error under the conformance suite:', error);
      internalErrors.push(error);
    },
  });
  const accounts = await createFixtureAccounts(marketplace);
  const mutant = options.mutant;
  const served: Marketplace = mutant ? { ...marketplace, handle: (request) => mutant(request, marketplace.handle, marketplace) } : marketplace;
  const running = await serve(served, { port: 0 });
  return {
    ...accounts,
    url: running.url,
    marketplace,
    async close() {
      await running.close();
      await storage?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
      if (internalErrors.length > 0) throw new Error(`the server answered ${internalErrors.length} request(s) with INTERNAL_ERROR; see the log above`);
    },
  };
}
