import { manualClock, memoryBlobs, memoryStorage } from '../adapters/memory/index.js';
import { ConfigurationError } from '../core/errors.js';
import { splitTarget, type CoreRequest, type CoreResponse } from '../core/pipeline/request.js';
import { createMarketplace, type Marketplace, type MarketplaceOptions } from '../core/marketplace.js';
import type { RateLimiterPort } from '../core/ports/rate-limit.js';
import type { AssetRecord } from '../core/ports/storage.js';
import type { Scope } from '../core/domain/scopes.js';
import { defaultRateLimits, memoryRateLimiter, type RateLimits } from '../core/rate-limits.js';
import { controlsPrefix, controlsSurface } from './controls.js';
import { recordingEvents, type TestEvents } from './events.js';
import { createFaults, type Faults } from './faults.js';
import { fixtureAccounts, type FixtureFunction, type FixtureName, type TestAccount } from './fixtures.js';
import { faultedHandler } from './kit-handler.js';
import { inProcessFetch, type Connection } from './kit-request.js';
import { kitState, type TestSnapshot } from './kit-state.js';
import type { ListeningKit, ListenOptions } from './listen.js';
import { seededIds } from './ids.js';
import { createRequestLog, type RequestLog } from './request-log.js';
import { seedOrigin, type Seed } from './seed.js';
import { recordingWebhooks, type TestWebhooks } from './webhooks.js';

// The kit's parts: fixtures.ts (the fixture accounts), kit-state.ts (the baseline, snapshots, scoped
// tokens), kit-handler.ts (faults and the request log around the marketplace's handler), kit-request.ts
// (the in-process fetch).
export { fixtureAccounts, type FixtureFunction, type FixtureName, type TestAccount } from './fixtures.js';
export { DroppedConnection, type Connection } from './kit-request.js';
export type { TestSnapshot } from './kit-state.js';

export interface TestMarketplaceOptions {
  /** The starting state beyond the fixture accounts; reset() comes back to it. */
  seed?: Seed;
  /** The clock's time at the seed (default: the real time when created). */
  now?: Date | number | string;
  /** The address the in-process `fetch` answers (default http://marketkit.test). */
  baseUrl?: string;
  /** Rate limits (default: the marketplace's defaults); reset() empties every window. */
  rateLimits?: Partial<RateLimits>;
  /** More options of createMarketplace (moderation.onSubmit, uploadUrlTtlSeconds, serviceKey, ...). */
  marketplace?: Omit<Partial<MarketplaceOptions>, 'storage' | 'blobs' | 'clock' | 'events' | 'rateLimiter' | 'rateLimits'>;
  /** Serve the test controls under /__marketkit/ (what `marketkit serve --memory --test-controls` does). */
  testControls?: boolean;
  /**
   * Seed of the ids, tokens and upload-signing secret (default 1): every run makes the same ones,
   * and reset() repeats them. `'random'` for random ones (crypto.randomUUID).
   */
  idSeed?: number | 'random';
}

export interface TestClock {
  now(): number;
  date(): Date;
  /** Moves time forward and runs what became due (scheduled listings are released, webhook retries sent); returns the released ones. */
  advance(ms: number): Promise<AssetRecord[]>;
  /** Sets the time (forward or back) and runs what became due. */
  set(time: Date | number | string): Promise<AssetRecord[]>;
}

export interface TestModeration {
  approve(assetId: string): Promise<AssetRecord>;
  reject(assetId: string, reason: string): Promise<AssetRecord>;
  requestChanges(assetId: string, reason: string): Promise<AssetRecord>;
  archive(assetId: string): Promise<AssetRecord>;
  /** Releases scheduled listings that are due by the clock (advance() does this itself). */
  releaseDue(): Promise<AssetRecord[]>;
}


export interface TestMarketplace extends Record<FixtureName, FixtureFunction> {
  /** The address the in-process fetch answers: `http://marketkit.test`. */
  readonly url: string;
  /** `${url}/api/v1`. */
  readonly api: string;
  /** Settles once the fixtures and the seed are written (every method waits for it itself). */
  readonly ready: Promise<void>;
  /** A fetch function (the same arguments as the global one) answered in process, without a port. */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The kit's handler in the core's request model, for bindings (listen() uses it). */
  handle(request: CoreRequest, connection?: Connection): Promise<CoreResponse>;
  /** Serves the kit on a real port (127.0.0.1, a free port by default); close() or mk.close() stops it. */
  listen(options?: ListenOptions): Promise<ListeningKit>;
  /** Closes every server listen() started. */
  close(): Promise<void>;
  /** A seeded account (or a fixture, by username) with a token; a new token when `scopes` are given. */
  account(username: string, options?: { scopes?: Scope[] }): Promise<TestAccount>;
  /** Replaces the seed: the fixtures plus `seed` become the state that reset() returns to. */
  seed(seed: Seed): Promise<Record<string, TestAccount>>;
  clock: TestClock;
  /** Back to the seed: storage, blobs, clock and rate limits; faults, the request log, the events and the webhook log cleared. */
  reset(): Promise<void>;
  snapshot(): Promise<TestSnapshot>;
  /** Puts back a snapshot's state (the faults, request log and events stay as they are). */
  restore(snapshot: TestSnapshot): Promise<void>;
  moderate: TestModeration;
  requests: RequestLog;
  faults: Faults;
  events: TestEvents;
  /**
   * The webhook deliveries the kit made (docs/testing.md, "Webhooks"): due deliveries are sent
   * after every request that may change something, every moderation and every clock move, before
   * that call returns; recorded in process and answered 200 unless the test says otherwise.
   */
  webhooks: TestWebhooks;
  /** The marketplace underneath (admin, ports, settings), for what the kit does not cover. */
  marketplace: Marketplace;
}

const toMs = (time: Date | number | string, name: string) => {
  const ms = typeof time === 'number' ? time : typeof time === 'string' ? Date.parse(time) : time.getTime();
  if (!Number.isFinite(ms)) throw new ConfigurationError('marketkit/testing', `${name} must be a date, an ISO timestamp or epoch milliseconds`);
  return ms;
};

/**
 * A marketplace on the in-memory adapters for testing client code: in process, stateful across
 * calls, with fixtures, a controllable clock, reset, faults, a request log and the events.
 */
export function createTestMarketplace(options: TestMarketplaceOptions = {}): TestMarketplace {
  const url = (options.baseUrl ?? seedOrigin).replace(/\/+$/, '');
  const storage = memoryStorage();
  const blobs = memoryBlobs();
  const clock = manualClock(options.now === undefined ? Date.now() : toMs(options.now, 'now'));
  const limits = { ...defaultRateLimits, ...options.rateLimits } as RateLimits;
  let limiter = memoryRateLimiter(limits);
  const rateLimiter: RateLimiterPort = { take: (key, limitClass, nowMs) => limiter.take(key, limitClass, nowMs), peek: (key, limitClass, nowMs) => limiter.peek(key, limitClass, nowMs) };
  const ids = options.idSeed === 'random' ? null : seededIds(options.idSeed ?? 1);
  const events = recordingEvents(async (id) => (await storage.getAsset(id))?.status ?? null);
  // The in-process origin is the kit's own: issued URLs are built on it (a listening kit's requests come on loopback).
  const allowedHosts = [...(options.marketplace?.allowedHosts ?? []), new URL(url).host];
  // Tests give local receivers: http and loopback targets are accepted unless the test says otherwise.
  const webhooks = recordingWebhooks(() => clock.now(), () => marketplace.webhooks.deliverDue());
  const webhookOptions = { allowHttp: true, allowPrivateAddresses: true, timeoutMs: 2000, ...options.marketplace?.webhooks, sender: webhooks.sender };
  // The controls are a surface of the marketplace's own frame, before REST (testing/controls.ts).
  const controls = options.testControls ? controlsSurface(() => mk) : null;
  const surfaces = [...(options.marketplace?.surfaces ?? []), ...(controls ? [controls] : [])];
  const marketplace = createMarketplace({ ...options.marketplace, surfaces, webhooks: webhookOptions, allowedHosts, storage, blobs, clock, rateLimiter, events: events.port, ...(ids ? { ids } : {}) });
  const faults = createFaults();
  const requests = createRequestLog();
  const servers = new Set<ListeningKit>();
  const state = kitState({ storage, blobs, clock, ids, marketplace, resetLimits: () => (limiter = memoryRateLimiter(limits)) }, options.seed);
  const { ready, account } = state;
  const faulted = faultedHandler(marketplace, clock, faults, requests);

  /** Sends every delivery due now, attempt by attempt, until none is left; a failure is reported, never thrown at the call that made the change. */
  async function deliverDue(): Promise<void> {
    try {
      for (let pass = 0; pass < 100 && (await marketplace.webhooks.deliverDue()).attempted > 0; pass++);
    } catch (error) {
      console.error('marketkit/testing: delivering webhooks failed:', error);
    }
  }

  async function handle(request: CoreRequest, connection: Connection = { drop: () => {} }): Promise<CoreResponse> {
    const split = splitTarget(request.target);
    const path = split?.path ?? '';
    // The controls' own calls pass by the faults and the request log.
    if (controls && path.startsWith(controlsPrefix)) return marketplace.handle(request);
    await ready;
    const response = await faulted(request, path, connection);
    // What the request queued is delivered before it is answered, so that a test sees it at once.
    if (request.method !== 'GET' && request.method !== 'HEAD') await deliverDue();
    return response;
  }

  const runDue = async () => {
    const released = await marketplace.moderation.releaseDue();
    await deliverDue();
    return released;
  };
  /** A moderator's action, then its event delivered. */
  const moderated = async (act: () => Promise<AssetRecord>) => {
    await ready;
    const asset = await act();
    await deliverDue();
    return asset;
  };

  const mk = {
    url,
    api: `${url}/api/v1`,
    ready,
    fetch: inProcessFetch(url, handle),
    handle,
    async listen(listenOptions: ListenOptions = {}) {
      await ready;
      // Loaded here, so that the kit itself imports no node:* module and runs wherever fetch does.
      const { listenKit } = await import('./listen.js');
      const server = await listenKit(handle, listenOptions);
      servers.add(server);
      const close = server.close;
      return {
        ...server,
        close: async () => {
          servers.delete(server);
          await close();
        },
      };
    },
    async close() {
      const all = [...servers];
      servers.clear();
      await Promise.all(all.map((s) => s.close()));
    },
    account,
    async seed(seed: Seed) {
      const accounts = await state.reseed(seed);
      faults.clear();
      requests.clear();
      events.clear();
      webhooks.clear();
      return accounts;
    },
    clock: {
      now: () => clock.now(),
      date: () => new Date(clock.now()),
      async advance(ms: number) {
        await ready;
        clock.advance(ms);
        return runDue();
      },
      async set(time: Date | number | string) {
        await ready;
        clock.set(toMs(time, 'clock.set'));
        return runDue();
      },
    },
    async reset() {
      await ready;
      state.reset();
      faults.clear();
      requests.clear();
      events.clear();
      webhooks.clear();
    },
    async snapshot() {
      await ready;
      return state.snapshot();
    },
    async restore(snapshot: TestSnapshot) {
      await ready;
      state.restore(snapshot);
    },
    moderate: {
      approve: (id: string) => moderated(() => marketplace.moderation.approve(id)),
      reject: (id: string, reason: string) => moderated(() => marketplace.moderation.reject(id, reason)),
      requestChanges: (id: string, reason: string) => moderated(() => marketplace.moderation.requestChanges(id, reason)),
      archive: (id: string) => moderated(() => marketplace.moderation.archive(id)),
      releaseDue: async () => (await ready, runDue()),
    },
    requests: { list: requests.list, count: requests.count, last: requests.last, clear: requests.clear },
    faults: { add: faults.add, error: faults.error, rateLimit: faults.rateLimit, unavailable: faults.unavailable, drop: faults.drop, latency: faults.latency, partialUpload: faults.partialUpload, list: faults.list, remove: faults.remove, clear: faults.clear },
    events: events.api,
    webhooks: webhooks.api,
    marketplace,
    ...(Object.fromEntries(
      Object.entries(fixtureAccounts).map(([name, { username }]) => [name, (opts?: { scopes?: Scope[] }) => account(username, opts)]),
    ) as Record<FixtureName, FixtureFunction>),
  } satisfies TestMarketplace;
  return mk;
}
