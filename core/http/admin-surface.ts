import * as v from 'valibot';
import type { Admin } from '../admin.js';
import { sha256Hex } from '../domain/sha256.js';
import { ApiError, invalidInput } from '../errors.js';
import type { Moderation } from '../moderation.js';
import type { Ports } from '../operations/context.js';
import { assetView } from '../operations/views.js';
import { optionProblems } from '../options.js';
import { readJsonBody } from './body.js';
import { errorResponse } from './handler.js';
import { jsonResponse, requestIdOf, splitTarget, type CoreRequest, type CoreResponse } from './request.js';

export const adminPrefix = '/api/admin';

export interface AdminSurfaceOptions {
  ports: Ports;
  admin: Admin;
  moderation: Moderation;
  serviceKey: string;
  maxJsonBytes: number;
  onError: (error: unknown, request: { method: string; path: string; requestId: string }) => void;
}

const ReasonBody = v.object({ reason: v.string('reason must be a string') });
const AccountBody = v.strictObject({
  seller_status: v.optional(v.picklist(['none', 'pending', 'approved'], 'seller_status must be none, pending or approved')),
  is_restricted: v.optional(v.boolean('is_restricted must be true or false')),
  is_suspended: v.optional(v.boolean('is_suspended must be true or false')),
  payouts_connected: v.optional(v.boolean('payouts_connected must be true or false')),
  subscription_tier: v.optional(v.string('subscription_tier must be a string')),
  plan_features: v.optional(v.array(v.string(), 'plan_features must be a list of strings')),
});
const CategoryBody = v.object({
  slug: v.pipe(v.string('slug must be a string'), v.regex(/^[a-z0-9-]{1,100}$/, 'slug must be lowercase letters, digits and hyphens')),
  name: v.pipe(v.string('name must be a string'), v.minLength(1, 'name must not be empty'), v.maxLength(100, 'name must be at most 100 characters')),
});

function parse<S extends v.GenericSchema>(schema: S, body: unknown): v.InferOutput<S> {
  const parsed = optionProblems(schema, body ?? {});
  if ('output' in parsed) return parsed.output;
  const [first] = parsed.problems;
  const [path, ...rest] = (first ?? 'body: is not valid').split(': ');
  throw rest.length ? invalidInput(path!, rest.join(': ')) : new ApiError('INVALID_INPUT', first);
}

function pageOf(query: string): { limit: number; offset: number } {
  const params = new URLSearchParams(query);
  const number = (name: string, fallback: number, min: number, max: number) => {
    const raw = params.get(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) throw invalidInput(name, `must be an integer from ${min} to ${max}`);
    return value;
  };
  return { limit: number('limit', 50, 1, 100), offset: number('offset', 0, 0, Number.MAX_SAFE_INTEGER) };
}

type Handler = (o: AdminSurfaceOptions, params: string[], request: CoreRequest, query: string) => Promise<unknown>;

const body = (o: AdminSurfaceOptions, request: CoreRequest) => readJsonBody(request, o.maxJsonBytes);
const asset = (decide: (o: AdminSurfaceOptions, id: string, request: CoreRequest) => Promise<Parameters<typeof assetView>[0]>): Handler =>
  async (o, [id], request) => assetView(await decide(o, id!, request));

/** The admin routes: method, path pattern, what it does. Nothing here is a developer-API operation. */
const routes: { method: string; pattern: RegExp; run: Handler }[] = [
  {
    method: 'GET',
    pattern: /^\/moderation\/queue$/,
    run: async (o, _params, _request, query) => {
      const { limit, offset } = pageOf(query);
      const page = await o.ports.storage.listAssetsInStatus('pending', limit, offset);
      return { items: page.items.map(assetView), total: page.total, limit, offset };
    },
  },
  { method: 'POST', pattern: /^\/assets\/([^/]+)\/approve$/, run: asset((o, id) => o.moderation.approve(id)) },
  { method: 'POST', pattern: /^\/assets\/([^/]+)\/archive$/, run: asset((o, id) => o.moderation.archive(id)) },
  {
    method: 'POST',
    pattern: /^\/assets\/([^/]+)\/reject$/,
    run: asset(async (o, id, request) => o.moderation.reject(id, parse(ReasonBody, await body(o, request)).reason)),
  },
  {
    method: 'POST',
    pattern: /^\/assets\/([^/]+)\/request-changes$/,
    run: asset(async (o, id, request) => o.moderation.requestChanges(id, parse(ReasonBody, await body(o, request)).reason)),
  },
  {
    method: 'POST',
    pattern: /^\/accounts\/([^/]+)$/,
    run: async (o, [id], request) => {
      const changes = parse(AccountBody, await body(o, request));
      if (!(await o.ports.storage.getAccount(id!))) throw new ApiError('NOT_FOUND', 'No account with this id.');
      return o.admin.updateAccount(id!, changes);
    },
  },
  {
    method: 'POST',
    pattern: /^\/categories$/,
    run: async (o, _params, request) => {
      const category = parse(CategoryBody, await body(o, request));
      if ((await o.ports.storage.listCategories()).some((c) => c.slug === category.slug)) throw new ApiError('CONFLICT', 'This category slug is already taken.');
      return o.admin.createCategory(category);
    },
  },
];

/** Equal without revealing where they differ: both are hashed, then every byte of the digests compared. */
function sameSecret(given: string, expected: string): boolean {
  const a = sha256Hex(given);
  const b = sha256Hex(expected);
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ApiError('NOT_FOUND', 'No such endpoint.');
  }
}

const unauthorized = () =>
  new ApiError('UNAUTHORIZED', 'The admin surface needs Authorization: Bearer <service key>.', { headers: { 'www-authenticate': 'Bearer realm="marketkit-admin"' } });

/**
 * The marketplace's own moderation and account surface under /api/admin, authorized only by the
 * configured service key (never by a developer token or a session). Without a key it does not
 * exist: createMarketplace does not route /api/admin here at all.
 */
export function createAdminSurface(options: AdminSurfaceOptions) {
  return {
    serves: (path: string) => path === adminPrefix || path.startsWith(`${adminPrefix}/`),
    async handle(request: CoreRequest): Promise<CoreResponse> {
      const requestId = requestIdOf(request, options.ports.ids);
      const target = splitTarget(request.target);
      const path = target?.path ?? '';
      try {
        const header = request.header('authorization') ?? '';
        const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
        if (!match || !sameSecret(match[1]!, options.serviceKey)) throw unauthorized();
        const sub = path.slice(adminPrefix.length);
        const found = routes.filter((route) => route.pattern.test(sub));
        if (found.length === 0) throw new ApiError('NOT_FOUND', 'No such endpoint.');
        const route = found.find((r) => r.method === request.method);
        if (!route) throw new ApiError('METHOD_NOT_ALLOWED', undefined, { headers: { allow: found.map((r) => r.method).join(', ') } });
        const params = route.pattern.exec(sub)!.slice(1).map(decodeParam);
        const result = await route.run(options, params, request, target?.query ?? '');
        return jsonResponse(200, result, { 'x-request-id': requestId });
      } catch (error) {
        const response = errorResponse(error, () => options.onError(error, { method: request.method, path, requestId }));
        return { ...response, headers: { ...response.headers, 'x-request-id': requestId } };
      }
    },
  };
}
