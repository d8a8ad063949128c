import { ApiError, ConfigurationError } from '../core/errors.js';
import { errorResponse } from '../core/pipeline/frame.js';
import { jsonResponse, type CoreRequest, type CoreResponse } from '../core/pipeline/request.js';
import { moderationActions, type ModerationAction } from '../core/operations/moderation.js';
import type { AssetRecord } from '../core/ports/storage.js';
import type { FaultRule } from './faults.js';
import type { TestMarketplace } from './test-marketplace.js';

/** The mount point of the test controls over HTTP. */
export const controlsPrefix = '/__marketkit/';

const maxControlBody = 1024 * 1024;

async function readJson(request: CoreRequest): Promise<Record<string, unknown>> {
  if (!request.body) return {};
  let text = '';
  let size = 0;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > maxControlBody) throw new ApiError('PAYLOAD_TOO_LARGE');
    text += decoder.decode(chunk, { stream: true });
  }
  text += decoder.decode();
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError('INVALID_INPUT', 'The body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError('INVALID_INPUT', 'body must be a JSON object');
  return value as Record<string, unknown>;
}

const field = (name: string, message: string) => new ApiError('INVALID_INPUT', `${name} ${message}`, { details: [{ path: name, message }] });

const assetSummary = (asset: AssetRecord) => ({ id: asset.id, status: asset.status, updated_at: asset.updated_at });

/** The moderate control's action names (approve, reject, request_changes, archive), from the moderation table. */
const moderationByName = new Map(Object.entries(moderationActions).map(([action, spec]) => [spec.name.replace(/-/g, '_'), action as ModerationAction]));

/**
 * The test controls for clients in any language, under /__marketkit/: reset, seed, fixtures,
 * clock, faults, requests, events, webhooks and moderate (docs/testing.md). Served only when the kit is
 * made with `testControls: true`; a mistake in a control's body is a 400 naming the field.
 */
export function createControls(mk: TestMarketplace) {
  type Route = (body: Record<string, unknown>, rest: string, query: URLSearchParams) => Promise<[number, unknown]>;
  const fixtures = async () =>
    Object.fromEntries(
      await Promise.all(
        (['seller', 'secondSeller', 'nonSeller', 'pendingSeller', 'restricted', 'suspended', 'sellerWithoutPayouts', 'sellerWithoutScheduling'] as const).map(
          async (name) => [name, await mk[name]()] as const,
        ),
      ),
    );
  const routes: Record<string, Route> = {
    'POST reset': async () => {
      await mk.reset();
      return [200, { ok: true, now: mk.clock.date().toISOString() }];
    },
    'POST seed': async (body) => [200, { accounts: await mk.seed(body), now: mk.clock.date().toISOString() }],
    'GET fixtures': async () => [200, { accounts: await fixtures() }],
    'GET clock': async () => [200, { now: mk.clock.date().toISOString() }],
    'POST clock': async (body) => {
      let released: AssetRecord[];
      if (body.advance_ms !== undefined) {
        if (typeof body.advance_ms !== 'number' || !Number.isFinite(body.advance_ms) || body.advance_ms < 0) throw field('advance_ms', 'must be a number of milliseconds >= 0');
        released = await mk.clock.advance(body.advance_ms);
      } else if (body.set !== undefined) {
        if (typeof body.set !== 'string' || !Number.isFinite(Date.parse(body.set))) throw field('set', 'must be an ISO 8601 timestamp');
        released = await mk.clock.set(body.set);
      } else throw field('advance_ms', 'or set is required');
      return [200, { now: mk.clock.date().toISOString(), released: released.map(assetSummary) }];
    },
    'GET faults': async () => [200, { data: mk.faults.list() }],
    'POST faults': async (body) => {
      const handle = mk.faults.add(body as unknown as FaultRule);
      return [201, { id: handle.id }];
    },
    'DELETE faults': async (_body, rest) => {
      if (rest) {
        if (!mk.faults.remove(Number(rest))) throw new ApiError('NOT_FOUND', `No fault ${rest}.`);
        return [200, { ok: true }];
      }
      mk.faults.clear();
      return [200, { ok: true }];
    },
    'GET requests': async (_body, _rest, query) => {
      const match = Object.fromEntries(['method', 'operation', 'code', 'fault'].filter((k) => query.has(k)).map((k) => [k, query.get(k)!]));
      const path = query.get('path');
      const status = query.get('status');
      return [200, { data: mk.requests.list({ ...match, ...(path ? { path } : {}), ...(status ? { status: Number(status) } : {}) }) }];
    },
    'DELETE requests': async () => {
      mk.requests.clear();
      return [200, { ok: true }];
    },
    'GET events': async () => [200, { data: mk.events.list() }],
    'GET webhooks': async (_body, _rest, query) => {
      const type = query.get('type');
      return [200, { data: mk.webhooks.list(type ? { type } : undefined) }];
    },
    'POST webhooks': async (body) => {
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
    },
    'DELETE webhooks': async () => {
      mk.webhooks.clear();
      return [200, { ok: true }];
    },
    'POST moderate': async (body) => {
      const { action, asset_id: assetId, reason } = body;
      const act = typeof action === 'string' ? moderationByName.get(action) : undefined;
      if (!act) throw field('action', `must be one of ${[...moderationByName.keys()].join(', ')}`);
      if (typeof assetId !== 'string') throw field('asset_id', 'must be the id of a listing');
      const asset = await mk.moderate[act](assetId, reason as string);
      return [200, assetSummary(asset)];
    },
  };

  return {
    async handle(request: CoreRequest, path: string, query: string): Promise<CoreResponse> {
      const [name = '', ...rest] = path.slice(controlsPrefix.length).split('/');
      const route = routes[`${request.method.toUpperCase()} ${name}`];
      try {
        if (!route) throw new ApiError('NOT_FOUND', `No test control ${request.method} ${path}.`);
        const [status, value] = await route(await readJson(request), rest.join('/'), new URLSearchParams(query));
        return jsonResponse(status, value);
      } catch (error) {
        // The kit's own checks (a bad seed or fault rule) say what to change.
        const refusal = error instanceof ConfigurationError ? new ApiError('INVALID_INPUT', error.message) : error;
        return errorResponse(refusal, { report: () => console.error('marketkit/testing: a test control failed:', error) });
      }
    },
  };
}
