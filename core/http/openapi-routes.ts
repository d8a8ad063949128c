import { generateOpenApi } from './openapi.js';
import type { UploadLimits } from '../uploads/limits.js';
import { jsonContentType, type CoreResponse, type RouteHandler } from '../pipeline/request.js';
import type { Method } from './routes.js';

interface Cached {
  body: string;
  etag: string;
}

async function etagOf(body: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body)));
  let hex = '';
  for (const byte of digest.slice(0, 16)) hex += byte.toString(16).padStart(2, '0');
  return `"${hex}"`;
}

/** Whether an If-None-Match header names this entity tag (weak comparison, as for GET). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * GET /api/v1/openapi.json: the generated document, without authentication, with an ETag and 304
 * on If-None-Match. One document per site URL, made once.
 */
export function openApiRoutes(limits?: UploadLimits): { method: Method; path: string; handle: RouteHandler }[] {
  const cache = new Map<string, Promise<Cached>>();
  const documentFor = (siteUrl: string): Promise<Cached> => {
    let cached = cache.get(siteUrl);
    if (!cached) {
      const body = JSON.stringify(generateOpenApi(siteUrl, limits), null, 2);
      cached = etagOf(body).then((etag) => ({ body, etag }));
      // A host-derived site URL comes from the request: keep the cache from growing without bound.
      if (cache.size > 16) cache.clear();
      cache.set(siteUrl, cached);
    }
    return cached;
  };
  return [
    {
      method: 'GET',
      path: '/openapi.json',
      async handle(request, context): Promise<CoreResponse> {
        const { body, etag } = await documentFor(context.siteUrl);
        const headers = { etag, 'cache-control': 'no-cache' };
        if (matchesEtag(request.header('if-none-match'), etag)) return { status: 304, headers, body: null };
        return { status: 200, headers: { ...headers, 'content-type': jsonContentType }, body };
      },
    },
  ];
}
