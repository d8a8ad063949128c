import { manualClock, memoryBlobs, memoryStorage, type ManualClock } from '../adapters/memory/index.js';
import { ConfigurationError } from '../core/errors.js';
import { splitTarget, type CoreRequest, type CoreResponse } from '../core/pipeline/request.js';
import { createMarketplace, type Marketplace } from '../core/marketplace.js';
import type { RateLimiterPort } from '../core/ports/rate-limit.js';
import type { AssetRecord } from '../core/ports/storage.js';
import type { Scope } from '../core/domain/scopes.js';
import { defaultRateLimits, memoryRateLimiter, type RateLimits } from '../core/rate-limits.js';
import { controlsPrefix, controlsSurface } from './controls.js';
import { recordingEvents } from './events.js';
import { createFaults } from './faults.js';
import { fixtureAccounts, type FixtureFunction, type FixtureName } from './fixtures.js';
import { faultedHandler } from './kit-handler.js';
import { inProcessFetch, type Connection } from './kit-request.js';
import { kitState, type TestSnapshot } from './kit-state.js';
import type { ListeningKit, ListenOptions } from './listen.js';
import { seededIds } from './ids.js';
import { createRequestLog } from './request-log.js';
import { seedOrigin, type Seed } from './seed.js';
import { recordingWebhooks } from './webhooks.js';

// The kit's parts: fixtures.ts (the fixture accounts), kit-state.ts (the baseline, snapshots, scoped
// tokens), kit-handler.ts (faults and the request log around the marketplace's handler), kit-request.ts
// (the in-process fetch).
export { fixtureAccounts, type FixtureFunction, type FixtureName, type TestAccount } from './fixtures.js';
export { DroppedConnection, type Connection } from './kit-request.js';
export type { TestSnapshot } from './kit-state.js';

export type { TestClock, TestMarketplace, TestMarketplaceOptions, TestModeration } from './test-marketplace-types.js';
import type { TestClock, TestMarketplace, TestMarketplaceOptions, TestModeration } from './test-marketplace-types.js';

const toMs = (time: Date | number | string, name: string) => {
  const ms = typeof time === 'number' ? time : typeof time === 'string' ? Date.parse(time) : time.getTime();
  if (!Number.isFinite(ms)) throw new ConfigurationError('marketkit/testing', `${name} must be a date, an ISO timestamp or epoch milliseconds`);
  return ms;
};

/** The kit's parts the functions below share (createTestMarketplace makes them). */
interface Kit {
  marketplace: Marketplace;
  clock: ManualClock;
  state: ReturnType<typeof kitState>;
  faults: ReturnType<typeof createFaults>;
  requests: ReturnType<typeof createRequestLog>;
  events: ReturnType<typeof recordingEvents>;
  webhooks: ReturnType<typeof recordingWebhooks>;
  /** The test controls' surface, with --test-controls / `testControls: true`. */
  controls: unknown;
  faulted: ReturnType<typeof faultedHandler>;
  servers: Set<ListeningKit>;
}

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
  const state = kitState({ storage, blobs, clock, ids, marketplace, resetLimits: () => (limiter = memoryRateLimiter(limits)) }, options.seed);
  const kit: Kit = { marketplace, clock, state, faults, requests, events, webhooks, controls, faulted: faultedHandler(marketplace, clock, faults, requests), servers: new Set() };
  const { ready, account } = state;
  const handle = (request: CoreRequest, connection?: Connection) => handleInKit(kit, request, connection);

  const mk = {
    url,
    api: `${url}/api/v1`,
    ready,
    fetch: inProcessFetch(url, handle),
    handle,
    listen: (listenOptions: ListenOptions = {}) => listenKitOn(kit, handle, listenOptions),
    async close() {
      const all = [...kit.servers];
      kit.servers.clear();
      await Promise.all(all.map((s) => s.close()));
    },
    account,
    async seed(seed: Seed) {
      const accounts = await state.reseed(seed);
      clearRecords(kit);
      return accounts;
    },
    clock: kitClock(kit),
    async reset() {
      await ready;
      state.reset();
      clearRecords(kit);
    },
    async snapshot() {
      await ready;
      return state.snapshot();
    },
    async restore(snapshot: TestSnapshot) {
      await ready;
      state.restore(snapshot);
    },
    moderate: kitModeration(kit),
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

/** Faults, the request log, the events and the webhooks seen: a reset or a new seed starts them afresh. */
function clearRecords(kit: Kit): void {
  kit.faults.clear();
  kit.requests.clear();
  kit.events.clear();
  kit.webhooks.clear();
}

/** Sends every delivery due now, attempt by attempt, until none is left; a failure is reported, never thrown at the call that made the change. */
async function deliverDue({ marketplace }: Kit): Promise<void> {
  try {
    for (let pass = 0; pass < 100 && (await marketplace.webhooks.deliverDue()).attempted > 0; pass++);
  } catch (error) {
    console.error('marketkit/testing: delivering webhooks failed:', error);
  }
}

/** A request to the kit: through the faults and the request log, then what it queued delivered. */
async function handleInKit(kit: Kit, request: CoreRequest, connection: Connection = { drop: () => {} }): Promise<CoreResponse> {
  const split = splitTarget(request.target);
  const path = split?.path ?? '';
  // The controls' own calls pass by the faults and the request log.
  if (kit.controls && path.startsWith(controlsPrefix)) return kit.marketplace.handle(request);
  await kit.state.ready;
  const response = await kit.faulted(request, path, connection);
  // What the request queued is delivered before it is answered, so that a test sees it at once.
  if (request.method !== 'GET' && request.method !== 'HEAD') await deliverDue(kit);
  return response;
}

async function listenKitOn(kit: Kit, handle: (request: CoreRequest, connection?: Connection) => Promise<CoreResponse>, listenOptions: ListenOptions) {
  await kit.state.ready;
  // Loaded here, so that the kit itself imports no node:* module and runs wherever fetch does.
  const { listenKit } = await import('./listen.js');
  const server = await listenKit(handle, listenOptions);
  kit.servers.add(server);
  const close = server.close;
  return {
    ...server,
    close: async () => {
      kit.servers.delete(server);
      await close();
    },
  };
}

/** Scheduled listings due now released (and scheduled versions made live), and their events delivered. */
async function runDue(kit: Kit) {
  const released = await kit.marketplace.moderation.releaseDue();
  await kit.marketplace.moderation.versions.releaseDue();
  await deliverDue(kit);
  return released;
}

function kitClock(kit: Kit): TestClock {
  const { clock, state } = kit;
  return {
    now: () => clock.now(),
    date: () => new Date(clock.now()),
    async advance(ms: number) {
      await state.ready;
      clock.advance(ms);
      return runDue(kit);
    },
    async set(time: Date | number | string) {
      await state.ready;
      clock.set(toMs(time, 'clock.set'));
      return runDue(kit);
    },
  };
}

/** The moderator's actions, each followed by its event delivered. */
function kitModeration(kit: Kit): TestModeration {
  const { moderation } = kit.marketplace;
  const moderated = async <T = AssetRecord>(act: () => Promise<T>) => {
    await kit.state.ready;
    const asset = await act();
    await deliverDue(kit);
    return asset;
  };
  return {
    approve: (id: string) => moderated(() => moderation.approve(id)),
    reject: (id: string, reason: string) => moderated(() => moderation.reject(id, reason)),
    requestChanges: (id: string, reason: string) => moderated(() => moderation.requestChanges(id, reason)),
    archive: (id: string) => moderated(() => moderation.archive(id)),
    releaseDue: async () => (await kit.state.ready, runDue(kit)),
    versions: {
      approve: (versionId: string) => moderated(() => moderation.versions.approve(versionId)),
      reject: (versionId: string, reason: string) => moderated(() => moderation.versions.reject(versionId, reason)),
      requestChanges: (versionId: string, reason: string) => moderated(() => moderation.versions.requestChanges(versionId, reason)),
      rollback: (assetId: string, reason?: string) => moderated(() => moderation.versions.rollback(assetId, reason)),
    },
  };
}
