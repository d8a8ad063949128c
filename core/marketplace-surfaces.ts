/**
 * createMarketplace's surfaces (core/marketplace.ts): REST, MCP, tus, the probes and, with a
 * service key, the admin API, in the one frame (core/pipeline/frame.ts) that answers every request.
 */
import { createAdmin, type Admin } from './admin/accounts.js';
import { generateAdminOpenApi } from './admin/openapi.js';
import { adminSurface } from './admin/surface.js';
import type { SessionKeys } from './auth/session-keys.js';
import { ConfigurationError } from './errors.js';
import { authRoutes } from './http/auth-routes.js';
import { restSurface } from './http/handler.js';
import { openApiRoutes } from './http/openapi-routes.js';
import { probePaths, probeSurface } from './http/probes.js';
import { referenceRoutes } from './http/reference-routes.js';
import { tusSurface } from './http/tus-surface.js';
import type { MarketplaceConfig } from './marketplace-ports.js';
import { mcpSurface } from './mcp/handler.js';
import type { MarketplaceMetrics, SurfaceName } from './metrics/marketplace-metrics.js';
import type { Moderation } from './moderation/moderation.js';
import { createUploadSigner } from './operations/blob-urls.js';
import type { Ports, Settings } from './operations/context.js';
import { tusPrefix } from './operations/tus-urls.js';
import { createFrame, type FailedRequest, type Surface } from './pipeline/frame.js';
import { dashboardSurface } from './dashboard/surface.js';
import { siteUrls, type CoreRequest, type CoreResponse } from './pipeline/request.js';

/** Where the marketplace reports what failed (onError, with outages said once a minute and counted). */
export type MarketplaceOnError = (error: unknown, request: FailedRequest) => void;

export interface SurfaceParts {
  config: MarketplaceConfig;
  ports: Ports;
  settings: Settings;
  sessionKeys: SessionKeys;
  moderation: Moderation;
  /** Who holds this instance's leases (tus appends among them). */
  instanceId: string;
  onError: MarketplaceOnError;
  metrics: MarketplaceMetrics | undefined;
}

export interface MarketplaceSurfaces {
  handle(request: CoreRequest): Promise<CoreResponse>;
  admin: Admin;
  /** Whether a request path belongs to the marketplace. */
  owns(path: string): boolean;
}

export function marketplaceSurfaces({ config, ports, settings, sessionKeys, moderation, instanceId, onError, metrics }: SurfaceParts): MarketplaceSurfaces {
  // Without a configured secret, upload URLs are good for this instance's lifetime only.
  const signer = createUploadSigner(config.signingSecret ?? ports.ids.randomBytes(32));
  const urls = issuedUrls(config, onError);
  const rest = restSurface({ ports, settings, signer, extraRoutes: [...openApiRoutes(settings), ...referenceRoutes(config.apiReference ?? null), ...authRoutes(ports, sessionKeys, config.maxJsonBytes)] });
  const mcp = mcpSurface({
    ports,
    settings,
    signer,
    siteUrl: config.siteUrl ?? null,
    allowedOrigins: config.mcp.allowedOrigins,
    allowedHosts: [...config.mcp.allowedHosts, ...config.allowedHosts],
    claimRootProbePaths: config.mcp.claimRootProbePaths,
  });
  // Resumable uploads (tus) beside the single PUT, on the stores that take appends (docs/uploads.md).
  const tus = tusSurface({ ports, settings, signer, holder: instanceId });
  const admin = createAdmin(ports, { ports, settings, siteUrl: config.siteUrl ?? null });
  const adminApi = config.serviceKey ? adminSurface({ ports, settings, admin, moderation, serviceKey: config.serviceKey }, generateAdminOpenApi) : null;
  // One frame for every surface (core/pipeline/frame.ts). /api/mcp, /api/admin (with a service key)
  // and the OAuth probe paths live outside /api/v1; REST answers everything else, with its 404.
  const cors = { origins: new Set(config.corsOrigins) };
  const probes = probeSurface(ports);
  // The dashboard's pages (core/dashboard/surface.ts), in the same frame: its base path is its own.
  const dashboard = settings.dashboard ? dashboardSurface({ ports, settings, signer, admin, moderation, dashboard: settings.dashboard }) : null;
  const named = new Map<Surface, { name: SurfaceName; route?: string }>([[rest, { name: 'rest' }], [probes, { name: 'rest' }], [tus, { name: 'blobs', route: `${tusPrefix}{path}` }], [mcp, { name: 'mcp', route: '/api/mcp' }]]);
  if (adminApi) named.set(adminApi, { name: 'admin' });
  if (dashboard) named.set(dashboard, { name: 'dashboard' });
  const framed = { ids: ports.ids, siteUrls: urls, maxJsonBytes: config.maxJsonBytes, onError, cors, surfaceNames: named, ...(metrics ? { metrics } : {}), ...(config.tracing ? { tracing: config.tracing } : {}), ...(config.onRequest ? { onAnswered: config.onRequest } : {}) };
  const handle = createFrame(framed, [...config.surfaces, probes, tus, ...(dashboard ? [dashboard] : []), ...(adminApi ? [rest, adminApi, mcp] : [rest, mcp])], rest);
  const owns = (path: string) =>
    path === '/api/v1' ||
    path.startsWith('/api/v1/') ||
    path.startsWith('/api/v1?') ||
    mcp.owns(path) ||
    probePaths.has(path.split('?', 1)[0]!) ||
    (adminApi?.serves(path) ?? false) ||
    (dashboard?.serves(path.split('?', 1)[0]!) ?? false) ||
    config.surfaces.some((surface) => surface.serves(path.split('?', 1)[0]!));
  return { handle, admin, owns };
}

/** Where issued URLs point: never a request's Host unless allowed (docs/security.md, "Input, URLs and logs"). */
function issuedUrls(config: MarketplaceConfig, onError: MarketplaceOnError) {
  let warnedHost = false;
  return siteUrls({
    siteUrl: config.siteUrl ?? null,
    // The hosts the operator named for the MCP endpoint are hosts it serves under too.
    allowedHosts: [...config.allowedHosts, ...config.mcp.allowedHosts],
    ...(config.listenUrl ? { listenUrl: config.listenUrl } : {}),
    onUntrustedHost(host) {
      if (warnedHost) return;
      warnedHost = true;
      const problem = `a request came for ${host}, which is not in allowedHosts, and no siteUrl is set: the URLs issued point at http://localhost. Set siteUrl (or allowedHosts) to the address clients reach.`;
      onError(new ConfigurationError('marketkit createMarketplace', problem), { method: 'CONFIG', path: 'siteUrl', requestId: '' });
    },
  });
}
