import { ApiError } from '../errors.js';
import type { CoreResponse, RouteHandler } from '../pipeline/request.js';
import { apiBase, type Method } from './routes.js';

/** Reads a file of the OpenAPI renderer's package (swagger-ui-dist), or null when it has none. */
export type ReferenceAssets = (name: string) => Promise<Uint8Array | null>;

/** The renderer files the page uses, with their types. Nothing else of the package is served. */
const assetTypes: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

// No inline script: the page runs under a CSP that allows scripts from this origin only.
const initScript = (base: string) => `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: ${JSON.stringify(`${base}/openapi.json`)}, dom_id: '#reference', deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0, displayOperationId: true });
});
`;

// Paths from the site root (with any mount prefix), so that /docs and /docs/ load the same files.
const page = (base: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Marketplace Developer API reference</title>
<link rel="icon" type="image/png" href="${base}/docs/favicon-32x32.png">
<link rel="stylesheet" href="${base}/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<noscript>This reference needs JavaScript. The machine-readable document is at <a href="${base}/openapi.json">openapi.json</a>.</noscript>
<script src="${base}/docs/swagger-ui-bundle.js"></script>
<script src="${base}/docs/init.js"></script>
</body>
</html>
`;

/** `/api/v1` under the site's path (`/market/api/v1` when mounted under /market). */
function apiPathOf(siteUrl: string): string {
  return `${new URL(siteUrl).pathname.replace(/\/$/, '')}${apiBase}`;
}

const securityHeaders = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};

/**
 * GET /api/v1/docs: a readable reference of the API, Swagger UI rendering /api/v1/openapi.json,
 * its files served from the installed package (never a CDN: the server may have no internet).
 */
export function referenceRoutes(assets: ReferenceAssets | null): { method: Method; path: string; handle: RouteHandler }[] {
  const unavailable = (): never => {
    throw new ApiError('NOT_FOUND', 'The API reference page is not enabled here; the document is at /api/v1/openapi.json.');
  };
  const text = (body: string, type: string): CoreResponse => ({
    status: 200,
    headers: { 'content-type': type, 'cache-control': 'no-cache', ...securityHeaders },
    body,
  });
  return [
    {
      method: 'GET',
      path: '/docs',
      async handle(_request, context) {
        if (!assets) unavailable();
        return text(page(apiPathOf(context.siteUrl)), 'text/html; charset=utf-8');
      },
    },
    {
      method: 'GET',
      path: '/docs/:file',
      async handle(_request, context) {
        if (!assets) unavailable();
        const name = context.path.slice(context.path.lastIndexOf('/') + 1);
        if (name === 'init.js') return text(initScript(apiPathOf(context.siteUrl)), 'text/javascript; charset=utf-8');
        const type = assetTypes[name];
        const body = type ? await assets!(name) : null;
        if (!type || !body) throw new ApiError('NOT_FOUND', 'No such file.');
        return { status: 200, headers: { 'content-type': type, 'cache-control': 'public, max-age=3600', ...securityHeaders }, body };
      },
    },
  ];
}
