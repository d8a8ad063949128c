import type { Admin } from './accounts.js';
import { sha256Hex } from '../domain/sha256.js';
import { ApiError } from '../errors.js';
import type { Moderation } from '../moderation/moderation.js';
import type { Ports, Settings } from '../operations/context.js';
import { adminActions, type AdminContext } from './actions.js';
import { runAdminAction } from './admin-operation.js';
import { clientKey, failureBudget, takeLimit } from '../pipeline/rate-limit.js';
import { jsonResponse } from '../pipeline/request.js';
import { createRouteTable } from '../pipeline/router.js';
import { checkStorable } from '../validation.js';
import { decodeParam, queryInput, routed } from '../pipeline/route-input.js';
import type { Surface } from '../pipeline/frame.js';

export const adminPrefix = '/api/admin';

export interface AdminSurfaceOptions {
  ports: Ports;
  settings: Settings;
  admin: Admin;
  moderation: Moderation;
  serviceKey: string;
}

/** Equal without revealing where they differ: both are hashed, then every byte of the digests compared. */
function sameSecret(given: string, expected: string): boolean {
  const a = sha256Hex(given);
  const b = sha256Hex(expected);
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

const unauthorized = () =>
  new ApiError('UNAUTHORIZED', 'The admin surface needs Authorization: Bearer <service key>.', { headers: { 'www-authenticate': 'Bearer realm="marketkit-admin"' } });

/**
 * The marketplace's own moderation and account surface under /api/admin, authorized only by the
 * configured service key (never by a developer token or a session). Without a key it does not
 * exist: createMarketplace does not route /api/admin here at all. Its OpenAPI document is at
 * /api/admin/openapi.json, behind the same key.
 */
export function adminSurface(options: AdminSurfaceOptions, openApi: (siteUrl: string) => unknown): Surface {
  const context: AdminContext = { ports: options.ports, settings: options.settings, admin: options.admin, moderation: options.moderation };
  const match = createRouteTable(adminActions.map((act) => ({ method: act.method, path: `${adminPrefix}${act.path}`, target: act })));
  return {
    serves: (path) => path === adminPrefix || path.startsWith(`${adminPrefix}/`),
    async serve(exchange) {
      const { request } = exchange;
      const header = request.header('authorization') ?? '';
      const key = /^Bearer\s+(\S+)\s*$/i.exec(header);
      // No key is no guess: 401, nothing charged. A wrong key is charged to the client address's
      // failure budget, and past it every key is refused with 429 before it is compared.
      if (!key) throw unauthorized();
      const address = clientKey(request);
      const now = options.ports.clock.now();
      const failures = failureBudget(options.ports);
      const admitted = failures.admit(address, now, true);
      const release = admitted instanceof Promise ? await admitted : admitted;
      try {
        if (!sameSecret(key[1]!, options.serviceKey)) await failures.fail(address, now, unauthorized());
      } finally {
        release();
      }
      // The admin budget's RateLimit-* headers, on every answer once the key is right.
      Object.assign(exchange.headers, await takeLimit(options.ports, 'service-key', 'admin', 'Too many admin calls'));
      if (exchange.path === `${adminPrefix}/openapi.json`) {
        exchange.route = exchange.path;
        if (request.method !== 'GET' && request.method !== 'HEAD') throw new ApiError('METHOD_NOT_ALLOWED', undefined, { headers: { allow: 'GET, HEAD' } });
        return jsonResponse(200, openApi(exchange.siteUrl));
      }
      const { target: act, params: sent, route } = routed(match(request.method, exchange.path), exchange.path);
      exchange.route = route;
      const params = Object.fromEntries(Object.entries(sent).map(([name, value]) => [name, decodeParam(value)]));
      // Path parameters reach storage unchecked by a schema (an account by name or id): no U+0000.
      checkStorable(params);
      const input = act.body ? await exchange.readJson() : act.query ? queryInput(exchange.query, act.query) : {};
      return jsonResponse(200, await runAdminAction({ ...context, siteUrl: exchange.siteUrl }, act, params, input));
    },
  };
}
