import { createAdmin, type Admin } from './admin/accounts.js';
import { createUploadSigner } from './operations/blob-urls.js';
import { ConfigurationError, defaultOnError, outagesOncePerMinute } from './errors.js';
import { coreRequestFromFetch, fetchResponseFromCore } from './http/fetch.js';
import { restSurface } from './http/handler.js';
import { openApiRoutes } from './http/openapi-routes.js';
import { referenceRoutes } from './http/reference-routes.js';
import { siteUrls, type CoreRequest, type CoreResponse } from './pipeline/request.js';
import { createFrame } from './pipeline/frame.js';
import { mcpSurface } from './mcp/handler.js';
import { adminSurface } from './admin/surface.js';
import { generateAdminOpenApi } from './admin/openapi.js';
import { createModeration, guardedPolicy, type LeasedRelease, type Moderation } from './moderation/moderation.js';
import { createVersionModeration, type VersionModeration } from './operations/version-moderation.js';
import { jwtSessionVerifier } from './auth/jwt.js';
import { createSessionKeys } from './auth/session-keys.js';
import { authRoutes } from './http/auth-routes.js';
import type { UploadStatePort } from './ports/upload-state.js';
import type { Ports, Settings } from './operations/context.js';
import { sweepUploads, type SweepReport } from './operations/upload-sweep.js';
import { purgeExpiredKeys } from './pipeline/idempotency.js';
import { parseOptions } from './options.js';
import { systemClock } from './ports/clock.js';
import { noEvents } from './ports/events.js';
import { webCryptoIds } from './ports/ids.js';
import { createReadCache } from './read-cache.js';
import { memoryRateLimiter } from './rate-limits.js';
import { deliverDue, runWorker, type DeliveryPass, type RunningWorker } from './webhooks/worker.js';

export const marketkitVersion = '0.1.0';

import { OptionsSchema, type MarketplaceOptions } from './marketplace-options.js';
import { memoryUploadStates } from './uploads/memory-upload-states.js';
import { tusSurface } from './http/tus-surface.js';
import { probePaths, probeSurface } from './http/probes.js';
import { tusPrefix } from './operations/tus-urls.js';
import type { Surface } from './pipeline/frame.js';
import { createMarketplaceMetrics, type SurfaceName } from './metrics/marketplace-metrics.js';
import { countDeliveries, countedRateLimiter, countingStorageErrors } from './metrics/counted-ports.js';
import { collectStoreGauges } from './metrics/store-gauges.js';
import { withCapabilities } from './storage-capabilities.js';
import { tracedPort } from './tracing/traced-ports.js';
export type { MarketplaceOptions } from './marketplace-options.js';

export interface Marketplace {
  /** The runtime-neutral handler the bindings call. */
  handle(request: CoreRequest): Promise<CoreResponse>;
  /** The same as a WHATWG fetch handler. `basePath` is the prefix it is mounted under, if any. */
  fetch(request: Request, basePath?: string): Promise<Response>;
  /** Whether a request path belongs to the marketplace (for middleware that passes others on). */
  owns(path: string): boolean;
  admin: Admin;
  /**
   * The transitions that belong to the marketplace, not the seller: approve, reject and
   * requestChanges (pending), archive (published), and releaseDue() for the job runner.
   */
  moderation: Pick<Moderation, 'approve' | 'reject' | 'requestChanges' | 'archive' | 'releaseDue'> & {
    /** The moderators' side of versions of published listings (docs/moderation.md, "Versions"). */
    versions: VersionModeration;
  };
  /**
   * Housekeeping for the job runner (serve runs it on a timer): sweepUploads() removes the blobs of
   * uploads never confirmed once their URL expired (after uploadGraceSeconds), of deleted listings
   * and of replaced files. One instance at a time runs it (a lease in storage); see docs/security.md.
   */
  maintenance: {
    sweepUploads(): Promise<SweepReport>;
    /**
     * releaseDue() on one instance at a time (the storage lease 'release-due', held by this
     * instance): `{ ran: false }` while another instance holds it. For the timer every instance
     * runs: releaseOnInterval(marketplace.maintenance, ...). Each release is still exactly once.
     */
    releaseDue(): Promise<LeasedRelease>;
    /** Removes idempotency keys older than a day (docs/rest.md, "Safe retries"); how many. Any instance may run it. */
    purgeRetryKeys(): Promise<number>;
    /** Removes webhook events (with their delivery logs) older than webhooks.retentionDays whose deliveries are all finished; how many. */
    purgeWebhookEvents(): Promise<number>;
  };
  /** The webhook delivery worker (docs/webhooks.md), with the webhooks.sender given. */
  webhooks: {
    /** One pass: claims the deliveries due now, sends them, records each attempt. */
    deliverDue(): Promise<DeliveryPass>;
    /**
     * Delivers until stopped: every `pollMs` (default 1000), at once while there is a backlog, and
     * right after a change this marketplace makes. Any number of instances may run one.
     */
    startWorker(options?: { pollMs?: number }): RunningWorker;
  };
  /**
   * The metrics in Prometheus's text format (docs/operations.md), for an application that serves
   * them itself (`content-type: metricsContentType`); '' when created with `metrics: false`.
   */
  metrics(): Promise<string>;
  ports: Ports;
  settings: Settings;
}

/** A marketplace over the given adapters. Throws a ConfigurationError that says what to change. */
/** The upload-state port a storage adapter offers beside itself (the SQL storages' `uploadStates`), if any. */
function storageUploadStates(storage: object): UploadStatePort | undefined {
  const offered = (storage as { uploadStates?: unknown }).uploadStates;
  return offered && typeof (offered as UploadStatePort).advance === 'function' ? (offered as UploadStatePort) : undefined;
}

export function createMarketplace(options: MarketplaceOptions): Marketplace {
  const config = parseOptions(OptionsSchema, options, 'marketkit createMarketplace');
  const storage = withCapabilities(config.storage, { leases: config.leases, idempotency: config.idempotency });
  const metrics = config.metrics ? createMarketplaceMetrics(marketkitVersion) : undefined;
  const { tracing } = config;
  // Traced under the read cache and the counting: a cache hit makes no storage span; a refusal still makes a limiter span.
  const limiter = config.rateLimiter ?? memoryRateLimiter(config.rateLimits);
  const rateLimiter = tracing ? tracedPort(limiter, 'rate_limiter', tracing) : limiter;
  const tracedStorage = tracing ? tracedPort(storage, 'storage', tracing) : storage;
  const ports: Ports = {
    storage: tracedStorage,
    blobs: tracing ? tracedPort(config.blobs, 'blobs', tracing) : config.blobs,
    clock: config.clock ?? systemClock,
    ids: config.ids ?? webCryptoIds,
    rateLimiter: metrics ? countedRateLimiter(rateLimiter, metrics) : rateLimiter,
    events: config.events ?? noEvents,
    ...(config.studio ? { studio: config.studio } : {}),
    // Uploads in progress: where they were given, else the storage's own (a SQL storage offers them, so
    // every instance on its database finds them), else this process's memory.
    uploadStates: config.uploadStates ?? storageUploadStates(config.storage) ?? memoryUploadStates(),
    ...(config.hashing ? { hashing: config.hashing } : {}),
    sessions: [],
    reads: createReadCache(tracedStorage, metrics),
    ...(metrics ? { metrics } : {}),
    ...(tracing ? { tracing } : {}),
  };
  if (metrics) collectStoreGauges(metrics, config.storage, ports.clock);
  const sessionKeys = createSessionKeys(config.sessionKey, ports.clock, ports.ids);
  // This server's own sessions first, then the configured identity providers, then custom verifiers.
  ports.sessions.push(sessionKeys.verifier, ...(config.jwtIssuers ?? []).map((issuer) => jwtSessionVerifier(issuer, ports.clock)), ...(config.sessions ?? []));
  const settings: Settings = {
    version: marketkitVersion,
    uploadUrlTtlMs: config.uploadUrlTtlSeconds * 1000,
    maxFileBytes: config.maxFileBytes,
    maxImageBytes: config.maxImageBytes,
    uploadGraceMs: config.uploadGraceSeconds * 1000,
    uploadLeaseMs: config.uploadLeaseSeconds * 1000,
    storageQuotaBytes: config.storageQuotaBytes ?? null,
    onSubmit: guardedPolicy(config.moderation.onSubmit, config.onError ?? defaultOnError),
    webhookTargets: { allowHttp: config.webhooks.allowHttp, allowPrivateAddresses: config.webhooks.allowPrivateAddresses },
  };
  const moderation = createModeration(ports, { onSubmit: settings.onSubmit });
  const versionModeration = createVersionModeration(ports);
  // Who holds this instance's job leases (the upload sweep, the release of scheduled listings) and claims its webhook deliveries.
  const instanceId = ports.ids.uuid();
  const webhookWorker = () => {
    const sender = config.webhooks.sender;
    if (!sender) throw new ConfigurationError('marketkit createMarketplace', 'webhooks.sender is needed to deliver webhooks: pass nodeWebhookSender() from marketkit/bindings/node (or your own sender)');
    const batch = 20;
    const settings = { timeoutMs: config.webhooks.timeoutMs, batch };
    const traced = ports.tracing ? { tracing: ports.tracing } : {};
    const pass = () => deliverDue({ storage: ports.storage, clock: ports.clock, ids: ports.ids, sender, holder: instanceId, ...traced }, settings);
    return { pass: metrics ? () => pass().then((done) => countDeliveries(metrics, done)) : pass, batch };
  };
  // Without a configured secret, upload URLs are good for this instance's lifetime only.
  const signer = createUploadSigner(config.signingSecret ?? ports.ids.randomBytes(32));
  const onError = countingStorageErrors(metrics, outagesOncePerMinute(config.onError ?? defaultOnError));
  // Where issued URLs point: never a request's Host unless allowed (docs/security.md, "Input, URLs and logs").
  let warnedHost = false;
  const urls = siteUrls({
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
  const admin = createAdmin(ports);
  const adminApi = config.serviceKey ? adminSurface({ ports, settings, admin, moderation, serviceKey: config.serviceKey }, generateAdminOpenApi) : null;
  // One frame for every surface (core/pipeline/frame.ts). /api/mcp, /api/admin (with a service key)
  // and the OAuth probe paths live outside /api/v1; REST answers everything else, with its 404.
  const cors = { origins: new Set(config.corsOrigins) };
  const probes = probeSurface(ports);
  const named = new Map<Surface, { name: SurfaceName; route?: string }>([[rest, { name: 'rest' }], [probes, { name: 'rest' }], [tus, { name: 'blobs', route: `${tusPrefix}{path}` }], [mcp, { name: 'mcp', route: '/api/mcp' }]]);
  if (adminApi) named.set(adminApi, { name: 'admin' });
  const framed = { ids: ports.ids, siteUrls: urls, maxJsonBytes: config.maxJsonBytes, onError, cors, surfaceNames: named, ...(metrics ? { metrics } : {}), ...(tracing ? { tracing } : {}), ...(config.onRequest ? { onAnswered: config.onRequest } : {}) };
  const handle = createFrame(framed, [...config.surfaces, probes, tus, ...(adminApi ? [rest, adminApi, mcp] : [rest, mcp])], rest);
  return {
    handle,
    async fetch(request, basePath = '') {
      return fetchResponseFromCore(await handle(coreRequestFromFetch(request, basePath)));
    },
    owns: (path) =>
      path === '/api/v1' ||
      path.startsWith('/api/v1/') ||
      path.startsWith('/api/v1?') ||
      mcp.owns(path) ||
      probePaths.has(path.split('?', 1)[0]!) ||
      (adminApi?.serves(path) ?? false) ||
      config.surfaces.some((surface) => surface.serves(path.split('?', 1)[0]!)),
    admin,
    moderation: {
      approve: moderation.approve,
      reject: moderation.reject,
      requestChanges: moderation.requestChanges,
      archive: moderation.archive,
      releaseDue: moderation.releaseDue,
      versions: versionModeration,
    },
    maintenance: {
      sweepUploads: () => sweepUploads(ports, settings, instanceId),
      releaseDue: () => moderation.releaseDueUnderLease(instanceId),
      purgeRetryKeys: () => purgeExpiredKeys(ports),
      purgeWebhookEvents: () => ports.storage.purgeWebhookEvents(new Date(ports.clock.now() - config.webhooks.retentionDays * 86_400_000).toISOString(), 1000),
    },
    webhooks: {
      deliverDue: () => webhookWorker().pass(),
      startWorker({ pollMs = 1000 } = {}) {
        const { pass, batch } = webhookWorker();
        const worker = runWorker(pass, { pollMs, batch, onError: (error) => onError(error, { method: 'JOB', path: 'webhook deliveries', requestId: '' }) });
        ports.nudgeDeliveries = worker.nudge;
        return {
          nudge: worker.nudge,
          async stop() {
            if (ports.nudgeDeliveries === worker.nudge) delete ports.nudgeDeliveries;
            await worker.stop();
          },
        };
      },
    },
    metrics: () => (metrics ? metrics.render((error) => onError(error, { method: 'METRICS', path: 'metrics', requestId: '' })) : Promise.resolve('')),
    ports,
    settings,
  };
}
