import { manualClock, memoryBlobs, memoryStorage, type MemoryBlobsSnapshot, type MemoryStorageSnapshot } from '../adapters/memory/index.js';
import type { AccountInput } from '../core/admin/accounts.js';
import { scopes as allScopes, type Scope } from '../core/domain/scopes.js';
import { ApiError, ConfigurationError } from '../core/errors.js';
import { blobRoutePrefix } from '../core/operations/blob-urls.js';
import { coreRequestFromFetch, fetchResponseFromCore } from '../core/http/fetch.js';
import { readAllBytes as readAll } from '../core/pipeline/body.js';
import { jsonResponse, requestIdOf, splitTarget, type CoreRequest, type CoreResponse } from '../core/pipeline/request.js';
import { createMarketplace, type Marketplace, type MarketplaceOptions } from '../core/marketplace.js';
import type { RateLimiterPort } from '../core/ports/rate-limit.js';
import type { AssetRecord } from '../core/ports/storage.js';
import { defaultRateLimits, memoryRateLimiter, type RateLimits } from '../core/rate-limits.js';
import { createControls } from './controls.js';
import { recordingEvents, type TestEvents } from './events.js';
import { createFaults, faultError, mcpPath, type Faults } from './faults.js';
import { toolRefusal } from '../core/mcp/methods.js';
import type { ListeningKit, ListenOptions } from './listen.js';
import { seededIds } from './ids.js';
import { createRequestLog, LoggedCall, type RequestLog } from './request-log.js';
import { applySeed, parseSeed, seedOrigin, type Seed } from './seed.js';

/** An account of the test marketplace and a token of it. */
export interface TestAccount {
  id: string;
  username: string;
  token: string;
  tokenId: string;
  scopes: Scope[];
  /** `{ authorization: 'Bearer <token>' }`, to spread into a request's headers. */
  headers: { authorization: string };
}

/** The accounts every test marketplace has, by the function that returns them and their username. */
export const fixtureAccounts = {
  seller: { username: 'seller', account: { seller_status: 'approved', payouts_connected: true, subscription_tier: 'pro', plan_features: ['scheduled_publishing'] } },
  secondSeller: { username: 'second-seller', account: { seller_status: 'approved', payouts_connected: true, subscription_tier: 'pro', plan_features: ['scheduled_publishing'] } },
  nonSeller: { username: 'non-seller', account: { seller_status: 'none' } },
  pendingSeller: { username: 'pending-seller', account: { seller_status: 'pending' } },
  restricted: { username: 'restricted-seller', account: { seller_status: 'approved', payouts_connected: true, is_restricted: true } },
  suspended: { username: 'suspended-seller', account: { seller_status: 'approved', payouts_connected: true, is_suspended: true } },
  sellerWithoutPayouts: { username: 'seller-without-payouts', account: { seller_status: 'approved', payouts_connected: false } },
  sellerWithoutScheduling: { username: 'seller-without-scheduling', account: { seller_status: 'approved', payouts_connected: true } },
} as const satisfies Record<string, { username: string; account: Omit<AccountInput, 'username'> }>;

export type FixtureName = keyof typeof fixtureAccounts;

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

/** The state of a test marketplace at one moment (storage, blobs, clock), for restore(). Opaque. */
export interface TestSnapshot {
  readonly kind: 'marketkit-test-snapshot';
  /** @internal */ readonly storage: MemoryStorageSnapshot;
  /** @internal */ readonly blobs: MemoryBlobsSnapshot;
  /** @internal */ readonly now: number;
  /** @internal */ readonly ids: number;
}

export interface TestClock {
  now(): number;
  date(): Date;
  /** Moves time forward and runs what became due (scheduled listings are released); returns the released ones. */
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

export type FixtureFunction = (options?: { scopes?: Scope[] }) => Promise<TestAccount>;

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
  /** Back to the seed: storage, blobs, clock and rate limits; faults, the request log and the events cleared. */
  reset(): Promise<void>;
  snapshot(): Promise<TestSnapshot>;
  /** Puts back a snapshot's state (the faults, request log and events stay as they are). */
  restore(snapshot: TestSnapshot): Promise<void>;
  moderate: TestModeration;
  requests: RequestLog;
  faults: Faults;
  events: TestEvents;
  /** The marketplace underneath (admin, ports, settings), for what the kit does not cover. */
  marketplace: Marketplace;
}

/** How the kit breaks a connection: the in-process fetch rejects, a real server destroys the socket. */
export interface Connection {
  drop(): void;
}

/** Thrown by handle() when the connection is to be dropped without a response. */
export class DroppedConnection extends Error {
  constructor() {
    super('marketkit/testing: connection dropped by a fault');
    this.name = 'DroppedConnection';
  }
}

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

function parsedJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(textDecoder.decode(bytes));
  } catch {
    return null;
  }
}

const isToolCall = (message: unknown): message is { method: 'tools/call'; id?: unknown; params?: { name?: unknown } } =>
  typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'tools/call';

/** The names of the tools a JSON-RPC message (or batch) calls. */
function toolsCalled(bytes: Uint8Array): string[] {
  const message = parsedJson(bytes);
  return (Array.isArray(message) ? message : [message]).filter(isToolCall).flatMap((m) => (typeof m.params?.name === 'string' ? [m.params.name] : []));
}

/** The id of a single tools/call request (not a batch, not a notification), else undefined. */
function singleToolCallId(bytes: Uint8Array): string | number | undefined {
  const message = parsedJson(bytes);
  return isToolCall(message) && (typeof message.id === 'string' || typeof message.id === 'number') ? message.id : undefined;
}

/** The bytes of a body the kit's fetch built itself, so that handle() need not read them back. */
const knownBody = Symbol('marketkit.testing.knownBody');

async function* oneChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

const normalizedMethods = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

/**
 * The core request a fetch(url, init) would deliver, built without a WHATWG Request for the common
 * cases (a string or byte body, plain headers): building a Request costs more than the marketplace's
 * own work. It follows fetch's rules: the six standard methods upper-cased, a string body sent as
 * `text/plain;charset=UTF-8` unless a content type is given, no body on GET or HEAD. Null when the
 * call needs the real thing (a stream, FormData, a signal, ...).
 */
function directRequest(input: string | URL, init: RequestInit = {}, origin: string): CoreRequest | null {
  const { body } = init;
  if (init.signal || (body != null && typeof body !== 'string' && !(body instanceof Uint8Array) && !(body instanceof ArrayBuffer))) return null;
  const headers = init.headers;
  if (headers !== undefined && (headers instanceof Headers || Array.isArray(headers) || typeof headers !== 'object')) return null;
  // The kit's own address with characters a URL keeps as they are, the usual case, is split without a
  // URL parse (the core resolves dot segments itself); anything else goes through URL as fetch would.
  const own = typeof input === 'string' && input.startsWith(origin) && /^[/?][A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/.test(input.slice(origin.length));
  const parsed = own ? { origin, target: input.slice(origin.length) } : (({ origin: o, pathname, search }) => ({ origin: o, target: pathname + search }))(new URL(input));
  const raw = init.method ?? 'GET';
  const method = normalizedMethods.has(raw.toUpperCase()) ? raw.toUpperCase() : raw;
  if (body != null && (method === 'GET' || method === 'HEAD')) throw new TypeError('Request with GET/HEAD method cannot have body.');
  const lower: Record<string, string> = {};
  if (headers) {
    for (const name in headers) {
      const value = String((headers as Record<string, string>)[name]);
      const key = name.toLowerCase();
      lower[key] = key in lower ? `${lower[key]}, ${value}` : value;
    }
  }
  let bytes: Uint8Array | null = null;
  if (typeof body === 'string') {
    bytes = textEncoder.encode(body);
    lower['content-type'] ??= 'text/plain;charset=UTF-8';
  } else if (body instanceof ArrayBuffer) bytes = new Uint8Array(body.slice(0));
  else if (body instanceof Uint8Array) bytes = body.slice();
  if (bytes) lower['content-length'] = String(bytes.byteLength);
  const request: CoreRequest & { [knownBody]?: Uint8Array } = {
    method,
    target: parsed.target,
    header: (name) => lower[name],
    body: bytes ? oneChunk(bytes) : null,
    origin: parsed.origin,
    basePath: '',
  };
  if (bytes) request[knownBody] = bytes;
  return request;
}

const toMs = (time: Date | number | string, name: string) => {
  const ms = typeof time === 'number' ? time : typeof time === 'string' ? Date.parse(time) : time.getTime();
  if (!Number.isFinite(ms)) throw new ConfigurationError('marketkit/testing', `${name} must be a date, an ISO timestamp or epoch milliseconds`);
  return ms;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  const marketplace = createMarketplace({ ...options.marketplace, allowedHosts, storage, blobs, clock, rateLimiter, events: events.port, ...(ids ? { ids } : {}) });
  const idsAtStart = ids?.state() ?? 0;
  const faults = createFaults();
  const requests = createRequestLog();
  const servers = new Set<ListeningKit>();

  /** The accounts of the baseline with their tokens (which stay valid across resets). */
  let baselineAccounts = new Map<string, TestAccount>();
  let baseline: TestSnapshot;
  /** Tokens with chosen scopes made since the last reset. */
  let scopedTokens = new Map<string, TestAccount>();

  const takeSnapshot = (): TestSnapshot => ({ kind: 'marketkit-test-snapshot', storage: storage.snapshot(), blobs: blobs.snapshot(), now: clock.now(), ids: ids?.state() ?? 0 });
  const restoreState = (snapshot: TestSnapshot) => {
    if (snapshot?.kind !== 'marketkit-test-snapshot') throw new ConfigurationError('marketkit/testing restore', 'pass a value returned by snapshot()');
    storage.restore(snapshot.storage);
    blobs.restore(snapshot.blobs);
    clock.set(snapshot.now);
    ids?.setState(snapshot.ids);
    limiter = memoryRateLimiter(limits);
    scopedTokens = new Map();
  };

  const asTestAccount = (username: string, t: { id: string; token: string; tokenId: string; scopes: Scope[] }): TestAccount => ({
    username,
    ...t,
    headers: { authorization: `Bearer ${t.token}` },
  });

  const fixtureUsernames = Object.values(fixtureAccounts).map((f) => f.username);
  const seedAt = clock.now();

  async function build(seed: Seed | undefined): Promise<Record<string, TestAccount>> {
    const parsed = parseSeed(seed, fixtureUsernames);
    storage.restore(memoryStorage().snapshot());
    blobs.restore(memoryBlobs().snapshot());
    clock.set(seedAt);
    ids?.setState(idsAtStart);
    const accounts = new Map<string, TestAccount>();
    for (const { username, account } of Object.values(fixtureAccounts)) {
      const created = await marketplace.admin.createAccount({ username, ...account } as AccountInput);
      const issued = await marketplace.admin.createToken({ accountId: created.id, name: 'fixture', scopes: [...allScopes] });
      accounts.set(username, asTestAccount(username, { id: created.id, token: issued.token, tokenId: issued.record.id, scopes: [...allScopes] }));
    }
    const seeded = await applySeed(marketplace, parsed, (username) => storage.findAccountByUsername(username));
    for (const [username, t] of seeded) accounts.set(username, asTestAccount(username, t));
    baselineAccounts = accounts;
    baseline = takeSnapshot();
    restoreState(baseline);
    return Object.fromEntries(accounts);
  }

  // The seed is checked now, so that a mistake in it throws here rather than in the first test.
  parseSeed(options.seed, fixtureUsernames);
  const ready = build(options.seed).then(() => {});
  ready.catch(() => {});

  async function account(username: string, { scopes }: { scopes?: Scope[] } = {}): Promise<TestAccount> {
    await ready;
    const base = baselineAccounts.get(username);
    if (!base) throw new ConfigurationError('marketkit/testing account', `no account ${username} in the seed or the fixtures (${[...baselineAccounts.keys()].join(', ')})`);
    if (!scopes) return base;
    const key = `${username}\n${[...scopes].sort().join(' ')}`;
    const existing = scopedTokens.get(key);
    if (existing) return existing;
    const issued = await marketplace.admin.createToken({ accountId: base.id, name: `scoped ${scopes.join(' ')}`, scopes });
    const made = asTestAccount(username, { id: base.id, token: issued.token, tokenId: issued.record.id, scopes: [...scopes] });
    scopedTokens.set(key, made);
    return made;
  }

  async function handle(request: CoreRequest, connection: Connection = { drop: () => {} }): Promise<CoreResponse> {
    const split = splitTarget(request.target);
    const path = split?.path ?? '';
    if (controls && path.startsWith('/__marketkit/')) return controls.handle(request, path, split?.query ?? '');
    await ready;
    const method = request.method.toUpperCase();
    const arrivedAt = clock.now();
    const isUpload = method === 'PUT' && path.startsWith(blobRoutePrefix);
    const authorization = request.header('authorization')?.slice(0, 12) ?? null;

    // The body is read here so that the log can show it (parsed only if a test reads the log); an
    // upload's bytes are only counted.
    let sentBytes: Uint8Array | null = null;
    let body = request.body;
    let uploadedBytes = 0;
    const known = (request as { [knownBody]?: Uint8Array })[knownBody];
    if (known && !isUpload) {
      // The kit's own fetch built this body from bytes it holds: nothing to read.
      sentBytes = known;
    } else if (body && !isUpload) {
      try {
        const bytes = await readAll(body);
        sentBytes = bytes;
        body = (async function* () {
          if (bytes.byteLength > 0) yield bytes;
        })();
      } catch (error) {
        body = (async function* () {
          throw error;
        })();
      }
    } else if (body && isUpload) {
      const source = body;
      body = (async function* () {
        for await (const chunk of source) {
          uploadedBytes += chunk.byteLength;
          yield chunk;
        }
      })();
    }
    // The tools a POST to the MCP endpoint calls, read from its body only when a rule asks.
    let called: readonly string[] | null = null;
    const tools = () => (called ??= path === mcpPath && sentBytes ? toolsCalled(sentBytes) : []);
    const decision = faults.decide(method, path, tools);
    const faultName = [decision.latencyMs > 0 ? 'latency' : null, decision.fault?.kind ?? null].filter(Boolean).join('+') || null;
    const log = (status: number | null, raw: unknown, contentType?: string) => {
      const sent = { bytes: sentBytes, contentType: request.header('content-type'), uploaded: isUpload ? uploadedBytes : null };
      requests.add(new LoggedCall(method, request.target, path, authorization, status, faultName, arrivedAt, sent, { raw, contentType }));
    };
    const dropped = () => {
      log(null, null);
      connection.drop();
      return new DroppedConnection();
    };

    if (decision.latencyMs > 0) await sleep(decision.latencyMs);
    const fault = decision.fault;
    if (fault?.kind === 'drop' && fault.when !== 'after') throw dropped();
    if (fault?.kind === 'error' || fault?.kind === 'rateLimit' || fault?.kind === 'unavailable') {
      const { status, error } = faultError(fault);
      // Like every answer of the marketplace, it carries the request's id.
      const requestId = { 'x-request-id': requestIdOf(request, marketplace.ports.ids) };
      // On the MCP endpoint a refusal of one tool call is a tool result, as the marketplace renders it.
      const rpcId = fault.kind === 'error' && path === mcpPath && sentBytes ? singleToolCallId(sentBytes) : undefined;
      if (rpcId !== undefined) {
        const envelope = { jsonrpc: '2.0', id: rpcId, result: toolRefusal(error.toBody()) };
        log(200, envelope);
        return jsonResponse(200, envelope, requestId);
      }
      const response = jsonResponse(status, error.toBody(), { ...error.headers, ...requestId });
      log(status, error.toBody());
      return response;
    }
    if (fault?.kind === 'partialUpload' && body) {
      // The marketplace receives the first part of the body, then the stream breaks as a cut connection does.
      const all = await readAll(body);
      const cut = all.subarray(0, Math.floor(all.byteLength * (fault.fraction ?? 0.5)));
      body = (async function* () {
        if (cut.byteLength > 0) yield cut;
        throw new ApiError('INVALID_INPUT', 'The request body ended before it was complete.');
      })();
      await marketplace.handle(withBody(request, body));
      throw dropped();
    }
    const response = await marketplace.handle(body === request.body ? request : withBody(request, body));
    if (fault?.kind === 'drop') throw dropped();
    const sent = response.body;
    log(response.status, typeof sent === 'string' || sent instanceof Uint8Array ? sent : sent ? { stream: true } : null, response.headers['content-type']);
    return response;
  }

  async function fetchInProcess(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const target = typeof input === 'string' && input.startsWith('/') ? url + input : input;
    try {
      const direct = target instanceof Request ? null : directRequest(target, init, url);
      const request = direct ?? coreRequestFromFetch(target instanceof Request && init === undefined ? target : new Request(target, init));
      return fetchResponseFromCore(await handle(request));
    } catch (error) {
      // What a fetch gets from a connection closed without a response (undici's wording).
      if (error instanceof DroppedConnection) throw new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
      throw error;
    }
  }

  const runDue = () => marketplace.moderation.releaseDue();

  const mk = {
    url,
    api: `${url}/api/v1`,
    ready,
    fetch: fetchInProcess,
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
      await ready;
      parseSeed(seed, fixtureUsernames);
      const previous = { baseline, baselineAccounts };
      let accounts: Record<string, TestAccount>;
      try {
        accounts = await build(seed);
      } catch (error) {
        // A seed the create rules refuse leaves the previous one in place, whole.
        ({ baseline, baselineAccounts } = previous);
        restoreState(baseline);
        throw error;
      }
      faults.clear();
      requests.clear();
      events.clear();
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
      restoreState(baseline);
      faults.clear();
      requests.clear();
      events.clear();
    },
    async snapshot() {
      await ready;
      return takeSnapshot();
    },
    async restore(snapshot: TestSnapshot) {
      await ready;
      restoreState(snapshot);
    },
    moderate: {
      approve: async (id: string) => (await ready, marketplace.moderation.approve(id)),
      reject: async (id: string, reason: string) => (await ready, marketplace.moderation.reject(id, reason)),
      requestChanges: async (id: string, reason: string) => (await ready, marketplace.moderation.requestChanges(id, reason)),
      archive: async (id: string) => (await ready, marketplace.moderation.archive(id)),
      releaseDue: async () => (await ready, runDue()),
    },
    requests: { list: requests.list, count: requests.count, last: requests.last, clear: requests.clear },
    faults: { add: faults.add, error: faults.error, rateLimit: faults.rateLimit, unavailable: faults.unavailable, drop: faults.drop, latency: faults.latency, partialUpload: faults.partialUpload, list: faults.list, remove: faults.remove, clear: faults.clear },
    events: events.api,
    marketplace,
    ...(Object.fromEntries(
      Object.entries(fixtureAccounts).map(([name, { username }]) => [name, (opts?: { scopes?: Scope[] }) => account(username, opts)]),
    ) as Record<FixtureName, FixtureFunction>),
  } satisfies TestMarketplace;
  const controls = options.testControls ? createControls(mk) : null;
  return mk;
}

/**
 * The same request with another body. Not a spread: a binding's request may be a class whose
 * `header` lives on its prototype (the Node binding's does), which a spread would leave behind.
 */
function withBody(request: CoreRequest, body: CoreRequest['body']): CoreRequest {
  return {
    method: request.method,
    target: request.target,
    header: (name) => request.header(name),
    body,
    ...(request.origin !== undefined ? { origin: request.origin } : {}),
    ...(request.basePath !== undefined ? { basePath: request.basePath } : {}),
    ...(request.loopback !== undefined ? { loopback: request.loopback } : {}),
  };
}
