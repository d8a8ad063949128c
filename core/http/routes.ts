import { IttyRouter } from 'itty-router';
import type { AnyOperation } from '../operations/context.js';
import type { RouteHandler } from './request.js';
import * as op from '../operations/index.js';
import { studioRoutes } from '../studio/routes.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

/** One REST endpoint: a path under /api/v1 that renders one operation. */
export interface RestRoute {
  method: Method;
  /** The path under `/api/v1`, in itty-router's form: `/assets/:id`. */
  path: string;
  operation: AnyOperation;
  /** Path parameter -> input field of the operation. */
  params?: Record<string, string>;
  /** Whether the operation's input fields come from the query string (else from the JSON body). */
  query?: boolean;
  /** The success status; a function where it depends on the result. */
  status?: number | ((result: never) => number);
  /** With a status function: every status it can give, for the OpenAPI document. */
  successStatuses?: number[];
  tag: 'Profile' | 'Assets' | 'Uploads' | 'Tokens' | 'Categories' | 'Studio';
}

const assetParam = { id: 'asset_id' };

/** The REST API, one row per endpoint of the spec's section 4 (and GET /categories). */
export const restRoutes: readonly RestRoute[] = [
  { method: 'GET', path: '/me', operation: op.getProfile, tag: 'Profile' },
  { method: 'PATCH', path: '/me', operation: op.updateProfile, tag: 'Profile' },
  { method: 'GET', path: '/categories', operation: op.listCategories, tag: 'Categories' },
  { method: 'GET', path: '/assets', operation: op.listAssets, query: true, tag: 'Assets' },
  { method: 'POST', path: '/assets', operation: op.createAsset, status: 201, tag: 'Assets' },
  {
    method: 'POST',
    path: '/assets/batch',
    operation: op.createAssetBatch,
    status: (result: { code?: string }) => (result.code ? 422 : 207),
    successStatuses: [207, 422],
    tag: 'Assets',
  },
  { method: 'GET', path: '/assets/:id', operation: op.getAsset, params: assetParam, tag: 'Assets' },
  { method: 'PATCH', path: '/assets/:id', operation: op.updateAsset, params: assetParam, tag: 'Assets' },
  { method: 'DELETE', path: '/assets/:id', operation: op.deleteAsset, params: assetParam, tag: 'Assets' },
  { method: 'POST', path: '/assets/:id/upload-url', operation: op.createAssetUploadUrl, params: assetParam, tag: 'Uploads' },
  { method: 'POST', path: '/assets/:id/confirm-file', operation: op.confirmAssetFile, params: assetParam, tag: 'Uploads' },
  { method: 'POST', path: '/assets/:id/images/upload-url', operation: op.createImageUploadUrl, params: assetParam, tag: 'Uploads' },
  { method: 'POST', path: '/assets/:id/confirm-image', operation: op.confirmAssetImage, params: assetParam, status: 201, tag: 'Uploads' },
  { method: 'POST', path: '/assets/:id/submit', operation: op.submitAsset, params: assetParam, tag: 'Assets' },
  { method: 'GET', path: '/tokens', operation: op.listTokens, tag: 'Tokens' },
  { method: 'DELETE', path: '/tokens', operation: op.revokeToken, query: true, tag: 'Tokens' },
  // Creator Studio, our extension: derived from core/studio/resources.ts (docs/studio.md).
  ...studioRoutes,
];

/** Endpoints the core serves itself, outside the operation table. */
export type SystemRoute = 'health' | 'blobPut' | 'blobGet';

export type RouteTarget =
  | { kind: 'rest'; route: RestRoute }
  | { kind: 'system'; name: SystemRoute }
  /** Served by a later layer (OpenAPI, auth) through the same routing. */
  | { kind: 'custom'; handle: RouteHandler };

export const apiBase = '/api/v1';

export type RouteMatch =
  | { found: true; target: RouteTarget; params: Record<string, string> }
  | { found: false; allow: Method[] };

type Entry = [method: string, pattern: RegExp, handlers: unknown[], path: string];

/**
 * Matches paths against the table with itty-router's compiled patterns. A path that exists under
 * other methods gives `allow` (for 405); an unknown path gives an empty `allow` (404).
 */
export function createRouteMatcher(extra: { method: Method; path: string; target: RouteTarget }[] = []) {
  const router = IttyRouter({ base: apiBase });
  const targets: RouteTarget[] = [];
  const add = (method: Method, path: string, target: RouteTarget) => {
    targets.push(target);
    router[method.toLowerCase() as 'get'](path, () => undefined);
  };
  add('GET', '/health', { kind: 'system', name: 'health' });
  add('PUT', '/blobs/:path+', { kind: 'system', name: 'blobPut' });
  add('GET', '/blobs/:path+', { kind: 'system', name: 'blobGet' });
  for (const route of restRoutes) add(route.method, route.path, { kind: 'rest', route });
  for (const { method, path, target } of extra) add(method, path, target);
  const entries = router.routes as unknown as Entry[];
  // The routes of each method, tried first: paths without parameters by a map look-up, the others
  // by their patterns in table order. The other methods' are tried only to tell 405 from 404.
  const exact = new Map<string, RouteTarget>();
  const patterns = new Map<string, { prefix: string; pattern: RegExp; target: RouteTarget }[]>();
  entries.forEach(([method, pattern], i) => {
    const path = entries[i]![3];
    if (/^[A-Za-z0-9/_-]+$/.test(path) && !exact.has(`${method} ${path}`)) {
      exact.set(`${method} ${path}`, targets[i]!);
      return;
    }
    if (!patterns.has(method)) patterns.set(method, []);
    // The literal segments before the first parameter (without the slash before it, which a pattern
    // may make optional): every path the pattern matches starts with them, a cheap test first.
    const parameter = path.search(/[:*]/);
    const prefix = parameter < 0 ? path.replace(/\/+$/, '') : path.slice(0, path.lastIndexOf('/', parameter));
    patterns.get(method)!.push({ prefix, pattern, target: targets[i]! });
  });
  const noParams: Record<string, string> = Object.freeze({}) as Record<string, string>;

  return function match(method: string, path: string): RouteMatch {
    // itty-router's patterns also accept trailing slashes: /me/ is /me.
    let end = path.length;
    while (end > 1 && path.charCodeAt(end - 1) === 47) end--;
    const target = exact.get(`${method} ${end === path.length ? path : path.slice(0, end)}`);
    if (target) return { found: true, target, params: noParams };
    const candidates = patterns.get(method);
    if (candidates) {
      for (let i = 0; i < candidates.length; i++) {
        const candidate = candidates[i]!;
        if (!path.startsWith(candidate.prefix)) continue;
        const groups = candidate.pattern.exec(path);
        if (groups) return { found: true, target: candidate.target, params: { ...groups.groups } };
      }
    }
    const allow = new Set<Method>();
    for (const [entryMethod, pattern] of entries) if (pattern.test(path)) allow.add(entryMethod as Method);
    return { found: false, allow: [...allow] };
  };
}
