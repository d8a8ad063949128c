import { ApiError, ConfigurationError } from '../core/errors.js';
import type { Exchange, Surface } from '../core/pipeline/frame.js';
import { jsonResponse, type CoreResponse } from '../core/pipeline/request.js';
import { createRouteTable, type Method } from '../core/pipeline/router.js';
import { routed } from '../core/pipeline/route-input.js';
import { moderationActions, type ModerationAction } from '../core/moderation/moderation.js';
import type { AssetRecord } from '../core/ports/storage.js';
import type { FaultRule } from './faults.js';
import type { TestMarketplace } from './test-marketplace-types.js';

/** The mount point of the test controls over HTTP. */
export const controlsPrefix = '/__marketkit/';

const field = (name: string, message: string) => new ApiError('INVALID_INPUT', `${name} ${message}`, { details: [{ path: name, message }] });

const assetSummary = (asset: AssetRecord) => ({ id: asset.id, status: asset.status, updated_at: asset.updated_at });

/** The moderate control's action names (approve, reject, request_changes, archive), from the moderation table. */
const moderationByName = new Map(Object.entries(moderationActions).map(([action, spec]) => [spec.name.replace(/-/g, '_'), action as ModerationAction]));

type Control = (body: Record<string, unknown>, params: Record<string, string>, query: URLSearchParams) => Promise<[number, unknown]>;

/**
 * The test controls for clients in any language, under /__marketkit/: reset, seed, fixtures,
 * clock, faults, requests, events, webhooks and moderate (docs/testing.md). A surface on the one
 * frame (core/pipeline/frame.ts) with a route table of its own: the frame gives each control its
 * request id, the JSON body reader and the error framing. Served only when the kit is made with
 * `testControls: true`; a mistake in a control's body is a 400 naming the field. `kit` is called at
 * the first request (the kit is made after the marketplace that serves this surface).
 */
export function controlsSurface(kit: () => TestMarketplace): Surface {
  let match: ReturnType<typeof createRouteTable<Control>> | undefined;
  return {
    serves: (path) => path.startsWith(controlsPrefix),
    async serve(exchange: Exchange): Promise<CoreResponse> {
      match ??= createRouteTable(controlRows(kit()));
      const found = routed(match(exchange.request.method, exchange.path), exchange.path, `No test control ${exchange.request.method} ${exchange.path}.`);
      const body = (await exchange.readJson()) ?? {};
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw field('body', 'must be a JSON object');
      try {
        const [status, value] = await found.target(body as Record<string, unknown>, found.params, new URLSearchParams(exchange.query));
        return jsonResponse(status, value);
      } catch (error) {
        // The kit's own checks (a bad seed or fault rule) say what to change.
        throw error instanceof ConfigurationError ? new ApiError('INVALID_INPUT', error.message) : error;
      }
    },
  };
}

/** The controls' route table: one row per control, in the one route matcher's spelling. */
function controlRows(mk: TestMarketplace): { method: Method; path: string; target: Control }[] {
  const controls: Record<string, Control> = {
    'POST reset': async () => {
      await mk.reset();
      return [200, { ok: true, now: mk.clock.date().toISOString() }];
    },
    'POST seed': async (body) => [200, { accounts: await mk.seed(body), now: mk.clock.date().toISOString() }],
    'GET fixtures': async () => [200, { accounts: await fixtureTokens(mk) }],
    'GET clock': async () => [200, { now: mk.clock.date().toISOString() }],
    'POST clock': (body) => moveClock(mk, body),
    'GET faults': async () => [200, { data: mk.faults.list() }],
    'POST faults': async (body) => {
      const handle = mk.faults.add(body as unknown as FaultRule);
      return [201, { id: handle.id }];
    },
    'DELETE faults': async () => {
      mk.faults.clear();
      return [200, { ok: true }];
    },
    'DELETE faults/:id': async (_body, { id }) => {
      if (!mk.faults.remove(Number(id))) throw new ApiError('NOT_FOUND', `No fault ${id}.`);
      return [200, { ok: true }];
    },
    'GET requests': async (_body, _params, query) => [200, { data: mk.requests.list(requestFilter(query)) }],
    'DELETE requests': async () => {
      mk.requests.clear();
      return [200, { ok: true }];
    },
    'GET events': async () => [200, { data: mk.events.list() }],
    'GET webhooks': async (_body, _params, query) => {
      const type = query.get('type');
      return [200, { data: mk.webhooks.list(type ? { type } : undefined) }];
    },
    'POST webhooks': (body) => setWebhooks(mk, body),
    'DELETE webhooks': async () => {
      mk.webhooks.clear();
      return [200, { ok: true }];
    },
    'POST moderate': (body) => moderate(mk, body),
  };

  return Object.entries(controls).map(([key, target]) => {
    const [method, name] = key.split(' ') as [Method, string];
    return { method, path: `${controlsPrefix}${name}`, target };
  });
}

/** Every fixture account with its token. */
async function fixtureTokens(mk: TestMarketplace) {
  return Object.fromEntries(
    await Promise.all(
      (['seller', 'secondSeller', 'nonSeller', 'pendingSeller', 'restricted', 'suspended', 'sellerWithoutPayouts', 'sellerWithoutScheduling'] as const).map(
        async (name) => [name, await mk[name]()] as const,
      ),
    ),
  );
}

/** POST clock: `advance_ms` or `set`; what became due runs, and the released listings are named. */
async function moveClock(mk: TestMarketplace, body: Record<string, unknown>): Promise<[number, unknown]> {
  let released: AssetRecord[];
  if (body.advance_ms !== undefined) {
    if (typeof body.advance_ms !== 'number' || !Number.isFinite(body.advance_ms) || body.advance_ms < 0) throw field('advance_ms', 'must be a number of milliseconds >= 0');
    released = await mk.clock.advance(body.advance_ms);
  } else if (body.set !== undefined) {
    if (typeof body.set !== 'string' || !Number.isFinite(Date.parse(body.set))) throw field('set', 'must be an ISO 8601 timestamp');
    released = await mk.clock.set(body.set);
  } else throw field('advance_ms', 'or set is required');
  return [200, { now: mk.clock.date().toISOString(), released: released.map(assetSummary) }];
}

/** GET requests' query as the request log's filter. */
function requestFilter(query: URLSearchParams) {
  const match = Object.fromEntries(['method', 'operation', 'code', 'fault'].filter((k) => query.has(k)).map((k) => [k, query.get(k)!]));
  const path = query.get('path');
  const status = query.get('status');
  return { ...match, ...(path ? { path } : {}), ...(status ? { status: Number(status) } : {}) };
}

/** POST webhooks: how the receiver answers (`respond_with`) and where deliveries go (`send_to`); then what is due is sent. */
async function setWebhooks(mk: TestMarketplace, body: Record<string, unknown>): Promise<[number, unknown]> {
  const { respond_with: status, send_to: target, ...unknown } = body;
  const [extra] = Object.keys(unknown);
  if (extra) throw field(extra, 'is not a webhooks control (respond_with, send_to)');
  if (status !== undefined) {
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) throw field('respond_with', 'must be an HTTP status from 100 to 599');
    mk.webhooks.respondWith(status);
  }
  if (target !== undefined) {
    if (target !== null && (typeof target !== 'string' || !/^https?:\/\//.test(target))) throw field('send_to', 'must be an http(s) URL or null');
    mk.webhooks.sendTo(target as string | null);
  }
  // Sends what is due now, under the new settings.
  const pass = await mk.webhooks.deliver();
  return [200, { ok: true, ...pass }];
}

/** POST moderate: a moderator's action on a listing, by the moderation table's name. */
async function moderate(mk: TestMarketplace, body: Record<string, unknown>): Promise<[number, unknown]> {
  const { action, asset_id: assetId, reason } = body;
  const act = typeof action === 'string' ? moderationByName.get(action) : undefined;
  if (!act) throw field('action', `must be one of ${[...moderationByName.keys()].join(', ')}`);
  if (typeof assetId !== 'string') throw field('asset_id', 'must be the id of a listing');
  const asset = await mk.moderate[act](assetId, reason as string);
  return [200, assetSummary(asset)];
}
