import * as v from 'valibot';
import { createAdmin, type Admin } from './admin/accounts.js';
import { createUploadSigner } from './operations/blob-urls.js';
import { ConfigurationError, defaultOnError, outagesOncePerMinute } from './errors.js';
import { coreRequestFromFetch, fetchResponseFromCore } from './http/fetch.js';
import { restSurface } from './http/handler.js';
import { openApiRoutes } from './http/openapi-routes.js';
import { referenceRoutes, type ReferenceAssets } from './http/reference-routes.js';
import { siteUrls, type CoreRequest, type CoreResponse } from './pipeline/request.js';
import { createFrame } from './pipeline/frame.js';
import { mcpSurface } from './mcp/handler.js';
import { adminSurface } from './admin/surface.js';
import { generateAdminOpenApi } from './admin/openapi.js';
import { createModeration, guardedPolicy, type LeasedRelease, type Moderation, type SubmitDecision } from './operations/moderation.js';
import type { Asset } from './schemas/asset.js';
import type { JWK } from 'jose';
import { jwtSessionVerifier, JwtIssuerSchema } from './auth/jwt.js';
import { createSessionKeys } from './auth/session-keys.js';
import { authRoutes } from './http/auth-routes.js';
import type { Ports, Settings } from './operations/context.js';
import { sweepUploads, type SweepReport } from './operations/upload-lifecycle.js';
import { purgeExpiredKeys } from './pipeline/idempotency.js';
import { parseOptions } from './options.js';
import { systemClock, type ClockPort } from './ports/clock.js';
import { noEvents, type EventsPort } from './ports/events.js';
import { webCryptoIds, type IdsPort } from './ports/ids.js';
import type { RateLimiterPort } from './ports/rate-limit.js';
import type { SessionVerifierPort } from './ports/auth.js';
import type { StoragePort } from './ports/storage.js';
import type { StudioStoragePort } from './ports/studio.js';
import type { BlobPort } from './ports/blobs.js';
import { createReadCache } from './read-cache.js';
import { memoryRateLimiter } from './rate-limits.js';
import type { WebhookSenderPort } from './ports/webhook-sender.js';
import { deliverDue, runWorker, type DeliveryPass, type RunningWorker } from './webhooks/worker.js';

export const marketkitVersion = '0.1.0';

const MiB = 1024 * 1024;

const port = <T>(name: string, methods: string[], example: string) =>
  v.custom<T>(
    (value) => typeof value === 'object' && value !== null && methods.every((m) => typeof (value as Record<string, unknown>)[m] === 'function'),
    `${name} must be a ${name} adapter with ${methods.join(', ')} (for example ${example})`,
  );

const positiveInteger = (name: string) => v.pipe(v.number(`${name} must be a number`), v.integer(`${name} must be an integer`), v.minValue(1, `${name} must be at least 1`));

const rateLimit = v.object({ limit: positiveInteger('limit'), windowSeconds: positiveInteger('windowSeconds') });

const OptionsSchema = v.object({
  storage: port<StoragePort>('storage', ['createAsset', 'getAsset', 'findTokenByHash'], 'memoryStorage()'),
  blobs: port<BlobPort>('blobs', ['put', 'head', 'delete'], 'memoryBlobs()'),
  clock: v.optional(port<ClockPort>('clock', ['now'], 'systemClock')),
  ids: v.optional(port<IdsPort>('ids', ['uuid', 'randomBytes'], 'webCryptoIds')),
  rateLimiter: v.optional(port<RateLimiterPort>('rateLimiter', ['take', 'peek'], 'memoryRateLimiter()')),
  events: v.optional(port<EventsPort>('events', ['emit'], '{ emit(event) {} }')),
  /** Creator Studio's storage (memoryStudio(), sqliteStudio()); without it the /studio routes answer 404 (docs/studio.md). */
  studio: v.optional(port<StudioStoragePort>('studio', ['insert', 'get', 'listChildren', 'countChildren', 'listProject', 'update', 'move', 'remove'], 'memoryStudio()')),
  sessions: v.optional(v.array(port<SessionVerifierPort>('session verifier', ['verify'], 'a JWT verifier'))),
  /** Identity providers whose session JWTs are accepted (docs/auth.md). */
  jwtIssuers: v.optional(v.array(JwtIssuerSchema)),
  /** The private ES256 JWK that signs exchanged sessions; without it, one is made per process. */
  sessionKey: v.optional(
    v.custom<JWK>(
      (key) => typeof key === 'object' && key !== null && (key as JWK).kty === 'EC' && (key as JWK).crv === 'P-256' && typeof (key as JWK).d === 'string',
      'sessionKey must be a P-256 private JWK with d (generateSessionKey() makes one)',
    ),
  ),
  siteUrl: v.optional(
    v.pipe(
      v.string(),
      v.url('siteUrl must be an absolute URL such as https://market.example'),
      v.regex(/^https?:\/\//, 'siteUrl must start with http:// or https://'),
      v.transform((url) => url.replace(/\/+$/, '')),
    ),
  ),
  /**
   * Hosts (`market.example`, any port, or `market.example:8443`) whose requests may build the URLs
   * the API stores and returns (signed_url, public_url) on their own Host when no siteUrl is set;
   * the first is used for requests to any other host. Also accepted by the MCP endpoint's Host check.
   */
  allowedHosts: v.optional(
    v.array(v.pipe(v.string(), v.regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/, 'allowedHosts must hold host names such as market.example or market.example:8443 (no scheme, no path)'))),
    [],
  ),
  /** The address the server listens on (`http://127.0.0.1:8787`), or a function that gives it once known: the URLs' base when no siteUrl is set (serve passes its own). */
  listenUrl: v.optional(
    v.union(
      [
        v.pipe(v.string(), v.regex(/^https?:\/\/[^/?#]+$/), v.transform((url): (() => string | undefined) => () => url)),
        v.custom<() => string | undefined>((f) => typeof f === 'function'),
      ],
      'listenUrl must be an origin such as http://127.0.0.1:8787, or a function that returns one',
    ),
  ),
  signingSecret: v.optional(
    v.pipe(
      v.union([v.string(), v.instance(Uint8Array)], 'signingSecret must be a string or bytes'),
      v.transform((secret) => (typeof secret === 'string' ? new TextEncoder().encode(secret) : secret)),
      v.check((secret) => secret.byteLength >= 32, 'signingSecret must be at least 32 bytes'),
    ),
  ),
  uploadUrlTtlSeconds: v.optional(positiveInteger('uploadUrlTtlSeconds'), 7200),
  maxFileBytes: v.optional(positiveInteger('maxFileBytes'), 512 * MiB),
  maxImageBytes: v.optional(positiveInteger('maxImageBytes'), 10 * MiB),
  /** How long after its URL expired an upload never confirmed is kept (then sweepUploads removes it). */
  uploadGraceSeconds: v.optional(positiveInteger('uploadGraceSeconds'), 3600),
  /** The most bytes one account's uploads may hold (files and images, confirmed or waiting); no quota by default. */
  storageQuotaBytes: v.optional(positiveInteger('storageQuotaBytes')),
  maxJsonBytes: v.optional(positiveInteger('maxJsonBytes'), 1 * MiB),
  /**
   * Origins whose browser pages may call the REST API and its signed-URL PUTs (docs/rest.md,
   * "Browsers (CORS)"): `https://app.example` (scheme, host, port; no path), or `*` for any. None by
   * default. The MCP endpoint has its own list (mcp.allowedOrigins).
   */
  corsOrigins: v.optional(
    v.array(v.pipe(v.string(), v.regex(/^(\*|https?:\/\/[^/?#\s]+)$/, 'corsOrigins must hold origins such as https://app.example (scheme and host, no path, no trailing slash) or *'))),
    [],
  ),
  /**
   * Sliding-window limits (docs/auth.md, "Rate limits"): per caller, reads, writes and uploads; per
   * client address, failed authentications (failedAuth) and unauthenticated MCP calls
   * (mcpUnauthenticated); the admin surface's calls (admin). Each { limit, windowSeconds }.
   */
  rateLimits: v.optional(
    v.partial(v.object({ read: rateLimit, write: rateLimit, upload: rateLimit, failedAuth: rateLimit, mcpUnauthenticated: rateLimit, admin: rateLimit })),
  ),
  /** The files of the reference page at /api/v1/docs (nodeApiReference() on Node); without it, that page is 404. */
  apiReference: v.optional(v.custom<ReferenceAssets>((f) => typeof f === 'function', 'apiReference must be a function that reads a file of swagger-ui-dist (nodeApiReference())')),
  /**
   * Hears every error that is not a client's fault (the client gets 500 INTERNAL_ERROR); clientAddress where the binding knows it.
   * A store that cannot be reached (StorageUnavailableError: the client gets 503 SERVICE_UNAVAILABLE) is heard once a minute at most.
   */
  onError: v.optional(
    v.custom<(error: unknown, request: { method: string; path: string; requestId: string; clientAddress?: string }) => void>((f) => typeof f === 'function', 'onError must be a function'),
  ),
  /** The hosted MCP endpoint at /api/mcp (docs/mcp.md). */
  mcp: v.optional(
    v.object({
      /** Origins whose pages may call the endpoint, besides siteUrl's. */
      allowedOrigins: v.optional(
        v.array(v.pipe(v.string(), v.regex(/^https?:\/\/[^/?#]+$/, 'mcp.allowedOrigins must hold origins such as https://app.example (scheme and host, no path)'))),
        [],
      ),
      /** Host names besides localhost, 127.0.0.1 and [::1] accepted when the server listens on loopback (and, after allowedHosts, for issued URLs). */
      allowedHosts: v.optional(
        v.array(v.pipe(v.string(), v.regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/, 'mcp.allowedHosts must hold host names such as dev.example or dev.example:8787'))),
        [],
      ),
      /** Whether middleware claims the root-level OAuth probe paths (/.well-known/..., /register, /authorize, /token). */
      claimRootProbePaths: v.optional(v.boolean('mcp.claimRootProbePaths must be true or false'), false),
    }),
    {},
  ),
  /**
   * The key that authorizes the admin surface under /api/admin (docs/moderation.md); without it
   * that surface does not exist (404).
   */
  serviceKey: v.optional(v.pipe(v.string('serviceKey must be a string'), v.minLength(32, 'serviceKey must be at least 32 characters'))),
  /** Webhooks (docs/webhooks.md): which endpoint URLs are accepted, and how deliveries are made. */
  webhooks: v.optional(
    v.object({
      /** Plain http:// endpoint URLs (local testing only). */
      allowHttp: v.optional(v.boolean('webhooks.allowHttp must be true or false'), false),
      /** Loopback, private, link-local and metadata addresses (local testing only). */
      allowPrivateAddresses: v.optional(v.boolean('webhooks.allowPrivateAddresses must be true or false'), false),
      /** What sends the attempts (nodeWebhookSender() of marketkit/bindings/node); without it, webhooks.deliverDue() and startWorker() refuse. */
      sender: v.optional(port<WebhookSenderPort>('webhooks.sender', ['send'], 'nodeWebhookSender()')),
      /** Each attempt's deadline, connection included. */
      timeoutMs: v.optional(v.pipe(positiveInteger('webhooks.timeoutMs'), v.maxValue(60_000, 'webhooks.timeoutMs must be at most 60000')), 10_000),
      /** How long events and their delivery logs are kept once every delivery is finished. */
      retentionDays: v.optional(positiveInteger('webhooks.retentionDays'), 30),
    }),
    {},
  ),
  /** Moderation of submitted listings (docs/moderation.md). */
  moderation: v.optional(
    v.object({
      /**
       * 'queue' (the default): a submitted listing waits for approve(); 'auto-approve': it is
       * published at once; a function `(listing) => 'queue' | 'approve'` decides per listing (a
       * hook that throws leaves the listing in the queue and is reported to onError).
       */
      onSubmit: v.optional(
        v.union(
          [v.picklist(['queue', 'auto-approve']), v.custom<(listing: Asset) => SubmitDecision | Promise<SubmitDecision>>((value) => typeof value === 'function')],
          'moderation.onSubmit must be "queue", "auto-approve" or a function (listing) => "queue" | "approve"',
        ),
        'queue',
      ),
    }),
    {},
  ),
});

export type MarketplaceOptions = v.InferInput<typeof OptionsSchema>;

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
  moderation: Pick<Moderation, 'approve' | 'reject' | 'requestChanges' | 'archive' | 'releaseDue'>;
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
  ports: Ports;
  settings: Settings;
}

/** A marketplace over the given adapters. Throws a ConfigurationError that says what to change. */
export function createMarketplace(options: MarketplaceOptions): Marketplace {
  const config = parseOptions(OptionsSchema, options, 'marketkit createMarketplace');
  const ports: Ports = {
    storage: config.storage,
    blobs: config.blobs,
    clock: config.clock ?? systemClock,
    ids: config.ids ?? webCryptoIds,
    rateLimiter: config.rateLimiter ?? memoryRateLimiter(config.rateLimits),
    events: config.events ?? noEvents,
    ...(config.studio ? { studio: config.studio } : {}),
    sessions: [],
    reads: createReadCache(config.storage),
  };
  const sessionKeys = createSessionKeys(config.sessionKey, ports.clock, ports.ids);
  // This server's own sessions first, then the configured identity providers, then custom verifiers.
  ports.sessions.push(sessionKeys.verifier, ...(config.jwtIssuers ?? []).map((issuer) => jwtSessionVerifier(issuer, ports.clock)), ...(config.sessions ?? []));
  const settings: Settings = {
    version: marketkitVersion,
    uploadUrlTtlMs: config.uploadUrlTtlSeconds * 1000,
    maxFileBytes: config.maxFileBytes,
    maxImageBytes: config.maxImageBytes,
    uploadGraceMs: config.uploadGraceSeconds * 1000,
    storageQuotaBytes: config.storageQuotaBytes ?? null,
    onSubmit: guardedPolicy(config.moderation.onSubmit, config.onError ?? defaultOnError),
    webhookTargets: { allowHttp: config.webhooks.allowHttp, allowPrivateAddresses: config.webhooks.allowPrivateAddresses },
  };
  const moderation = createModeration(ports, { onSubmit: settings.onSubmit });
  // Who holds this instance's job leases (the upload sweep, the release of scheduled listings) and claims its webhook deliveries.
  const instanceId = ports.ids.uuid();
  const webhookWorker = () => {
    const sender = config.webhooks.sender;
    if (!sender) throw new ConfigurationError('marketkit createMarketplace', 'webhooks.sender is needed to deliver webhooks: pass nodeWebhookSender() from marketkit/bindings/node (or your own sender)');
    const batch = 20;
    const settings = { timeoutMs: config.webhooks.timeoutMs, batch };
    return { pass: () => deliverDue({ storage: ports.storage, clock: ports.clock, ids: ports.ids, sender, holder: instanceId }, settings), batch };
  };
  // Without a configured secret, upload URLs are good for this instance's lifetime only.
  const signer = createUploadSigner(config.signingSecret ?? ports.ids.randomBytes(32));
  const onError = outagesOncePerMinute(config.onError ?? defaultOnError);
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
  const rest = restSurface({ ports, settings, signer, extraRoutes: [...openApiRoutes(), ...referenceRoutes(config.apiReference ?? null), ...authRoutes(ports, sessionKeys, config.maxJsonBytes)] });
  const mcp = mcpSurface({
    ports,
    settings,
    signer,
    siteUrl: config.siteUrl ?? null,
    allowedOrigins: config.mcp.allowedOrigins,
    allowedHosts: [...config.mcp.allowedHosts, ...config.allowedHosts],
    claimRootProbePaths: config.mcp.claimRootProbePaths,
  });
  const admin = createAdmin(ports);
  const adminApi = config.serviceKey ? adminSurface({ ports, settings, admin, moderation, serviceKey: config.serviceKey }, generateAdminOpenApi) : null;
  // One frame for every surface (core/pipeline/frame.ts). /api/mcp, /api/admin (with a service key)
  // and the OAuth probe paths live outside /api/v1; REST answers everything else, with its 404.
  const cors = { origins: new Set(config.corsOrigins) };
  const handle = createFrame({ ids: ports.ids, siteUrls: urls, maxJsonBytes: config.maxJsonBytes, onError, cors }, adminApi ? [rest, adminApi, mcp] : [rest, mcp], rest);
  return {
    handle,
    async fetch(request, basePath = '') {
      return fetchResponseFromCore(await handle(coreRequestFromFetch(request, basePath)));
    },
    owns: (path) => path === '/api/v1' || path.startsWith('/api/v1/') || path.startsWith('/api/v1?') || mcp.owns(path) || (adminApi?.serves(path) ?? false),
    admin,
    moderation: {
      approve: moderation.approve,
      reject: moderation.reject,
      requestChanges: moderation.requestChanges,
      archive: moderation.archive,
      releaseDue: moderation.releaseDue,
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
    ports,
    settings,
  };
}
