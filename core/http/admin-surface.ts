import type { TSchema } from '@sinclair/typebox';
import type { Admin } from '../admin.js';
import { sha256Hex } from '../domain/sha256.js';
import { ApiError } from '../errors.js';
import type { Moderation } from '../moderation.js';
import type { Ports, Settings } from '../operations/context.js';
import { adminActions, runAdminAction, type AdminContext } from './admin-actions.js';
import { readJsonBody } from './body.js';
import { clientKey, failureBudget, takeLimit } from './rate-limit.js';
import { errorResponse } from './handler.js';
import { jsonResponse, requestIdOf, siteUrlOf, splitTarget, type CoreRequest, type CoreResponse, type SiteUrls } from './request.js';

export const adminPrefix = '/api/admin';

export interface AdminSurfaceOptions {
  ports: Ports;
  settings: Settings;
  admin: Admin;
  moderation: Moderation;
  serviceKey: string;
  maxJsonBytes: number;
  onError: (error: unknown, request: { method: string; path: string; requestId: string }) => void;
}

/** Query parameters as the query schema's types: integers where it says integer. */
function queryInput(schema: TSchema | undefined, query: string): Record<string, unknown> {
  if (!schema) return {};
  const out: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(query)) {
    const type = (schema.properties as Record<string, TSchema> | undefined)?.[name]?.type;
    out[name] = type === 'integer' && /^-?\d{1,15}$/.test(value) ? Number(value) : value;
  }
  return out;
}

const compiled = adminActions.map((act) => {
  const names: string[] = [];
  const source = act.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { act, names, pattern: new RegExp(`^${source}$`) };
});

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
 * exist: createMarketplace does not route /api/admin here at all. Its OpenAPI document is at
 * /api/admin/openapi.json, behind the same key.
 */
export function createAdminSurface(options: AdminSurfaceOptions & { siteUrl: string | null; siteUrls?: SiteUrls }, openApi: (siteUrl: string) => unknown) {
  const context: AdminContext = { ports: options.ports, settings: options.settings, admin: options.admin, moderation: options.moderation };
  return {
    serves: (path: string) => path === adminPrefix || path.startsWith(`${adminPrefix}/`),
    async handle(request: CoreRequest): Promise<CoreResponse> {
      const requestId = requestIdOf(request, options.ports.ids);
      const target = splitTarget(request.target);
      const path = target?.path ?? '';
      // The admin budget's RateLimit-* headers, once the key is right.
      const limitHeaders: Record<string, string> = {};
      try {
        const header = request.header('authorization') ?? '';
        const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
        // No key is no guess: 401, nothing charged. A wrong key is charged to the client address's
        // failure budget, and past it every key is refused with 429 before it is compared.
        if (!match) throw unauthorized();
        const address = clientKey(request);
        const now = options.ports.clock.now();
        const failures = failureBudget(options.ports);
        const admitted = failures.admit(address, now, true);
        const release = admitted instanceof Promise ? await admitted : admitted;
        try {
          if (!sameSecret(match[1]!, options.serviceKey)) await failures.fail(address, now, unauthorized());
        } finally {
          release();
        }
        Object.assign(limitHeaders, await takeLimit(options.ports, 'service-key', 'admin', 'Too many admin calls'));
        const sub = path.slice(adminPrefix.length);
        if (sub === '/openapi.json') {
          if (request.method !== 'GET' && request.method !== 'HEAD') throw new ApiError('METHOD_NOT_ALLOWED', undefined, { headers: { allow: 'GET, HEAD' } });
          return jsonResponse(200, openApi(siteUrlOf(request, options.siteUrls ?? options.siteUrl)), { ...limitHeaders, 'x-request-id': requestId });
        }
        const found = compiled.filter((route) => route.pattern.test(sub));
        if (found.length === 0) throw new ApiError('NOT_FOUND', 'No such endpoint.');
        const route = found.find((r) => r.act.method === request.method);
        if (!route) throw new ApiError('METHOD_NOT_ALLOWED', undefined, { headers: { allow: found.map((r) => r.act.method).join(', ') } });
        const values = route.pattern.exec(sub)!.slice(1).map(decodeParam);
        const params = Object.fromEntries(route.names.map((name, i) => [name, values[i]!]));
        const input = route.act.body ? await readJsonBody(request, options.maxJsonBytes) : queryInput(route.act.query, target?.query ?? '');
        const result = await runAdminAction(context, route.act, params, input);
        return jsonResponse(200, result, { ...limitHeaders, 'x-request-id': requestId });
      } catch (error) {
        const response = errorResponse(error, () => options.onError(error, { method: request.method, path, requestId }));
        return { ...response, headers: { ...limitHeaders, ...response.headers, 'x-request-id': requestId } };
      }
    },
  };
}
