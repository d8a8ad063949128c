import type { Authenticate } from './operations/context.js';
import * as v from 'valibot';
import type { JWK } from 'jose';
import type { ReferenceAssets } from './http/reference-routes.js';
import type { SubmitDecision } from './moderation/moderation.js';
import type { Asset } from './schemas/asset.js';
import { JwtIssuerSchema } from './auth/jwt.js';
import type { ClockPort } from './ports/clock.js';
import type { EventsPort } from './ports/events.js';
import type { IdsPort } from './ports/ids.js';
import type { RateLimiterPort } from './ports/rate-limit.js';
import type { SessionVerifierPort } from './ports/auth.js';
import type { IdempotencyPort, LeasePort, StoragePort } from './ports/storage.js';
import type { StudioStoragePort } from './ports/studio.js';
import type { BlobPort } from './ports/blobs.js';
import type { WebhookSenderPort } from './ports/webhook-sender.js';
import type { Surface } from './pipeline/frame.js';
import { defaultUploadLimits } from './uploads/limits.js';
import type { UploadStatePort } from './ports/upload-state.js';
import type { HashingPort } from './ports/hashing.js';
import type { TracingPort } from './ports/tracing.js';
import type { AnsweredRequest } from './pipeline/frame.js';

/** createMarketplace's options, checked at the call: what each is, its default, and what a wrong one says. */
const MiB = 1024 * 1024;

const port = <T>(name: string, methods: string[], example: string) =>
  v.custom<T>(
    (value) => typeof value === 'object' && value !== null && methods.every((m) => typeof (value as Record<string, unknown>)[m] === 'function'),
    `${name} must be a ${name} adapter with ${methods.join(', ')} (for example ${example})`,
  );

const positiveInteger = (name: string) => v.pipe(v.number(`${name} must be a number`), v.integer(`${name} must be an integer`), v.minValue(1, `${name} must be at least 1`));

const rateLimit = v.object({ limit: positiveInteger('limit'), windowSeconds: positiveInteger('windowSeconds') });

export const OptionsSchema = v.object({
  storage: port<StoragePort>('storage', ['createAsset', 'getAsset', 'findTokenByHash'], 'memoryStorage()'),
  /**
   * Job leases in a store of their own (Redis, say) instead of `storage`'s: any LeasePort
   * (core/ports/leases.ts). Left out: `storage` holds them.
   */
  leases: v.optional(port<LeasePort>('leases', ['tryLease'], 'sqliteStorage(...) or your own LeasePort')),
  /** Idempotency keys in a store of their own instead of `storage`'s: any IdempotencyPort (core/ports/idempotency.ts). */
  idempotency: v.optional(port<IdempotencyPort>('idempotency', ['claimIdempotencyKey', 'finishIdempotencyKey', 'purgeIdempotencyKeys'], 'memoryStorage() or your own IdempotencyPort')),
  blobs: port<BlobPort>('blobs', ['put', 'head', 'delete'], 'memoryBlobs()'),
  clock: v.optional(port<ClockPort>('clock', ['now'], 'systemClock')),
  ids: v.optional(port<IdsPort>('ids', ['uuid', 'randomBytes'], 'webCryptoIds')),
  rateLimiter: v.optional(port<RateLimiterPort>('rateLimiter', ['take', 'peek'], 'memoryRateLimiter()')),
  events: v.optional(port<EventsPort>('events', ['emit'], '{ emit(event) {} }')),
  /** Creator Studio's storage (memoryStudio(), sqliteStudio()); without it the /studio routes answer 404 (docs/studio.md). */
  studio: v.optional(port<StudioStoragePort>('studio', ['insert', 'get', 'listChildren', 'countChildren', 'listProject', 'update', 'move', 'remove'], 'memoryStudio()')),
  /** Where uploads in progress keep their offset and hash state (sqliteUploadStates(), postgresUploadStates()); by default the storage's own when it offers them (the SQL storages' storage.uploadStates), else this process's memory (docs/uploads.md). */
  uploadStates: v.optional(port<UploadStatePort>('uploadStates', ['create', 'get', 'lease', 'release', 'advance', 'delete', 'listExpired'], 'sqliteUploadStates({ path })')),
  /** A faster SHA-256 for the single PUT, from the runtime (nodeHashing() from marketkit/bindings/node); the core's WASM one by default. */
  hashing: v.optional(port<HashingPort>('hashing', ['sha256'], 'nodeHashing()')),
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
  /** The largest listing file (20 GiB: creators' packs); past it 413 and nothing kept (docs/uploads.md). */
  maxFileBytes: v.optional(positiveInteger('maxFileBytes'), defaultUploadLimits.maxFileBytes),
  maxImageBytes: v.optional(positiveInteger('maxImageBytes'), defaultUploadLimits.maxImageBytes),
  /** How long after its URL expired an upload never confirmed is kept (then sweepUploads removes it). */
  uploadGraceSeconds: v.optional(positiveInteger('uploadGraceSeconds'), 3600),
  /**
   * How long a resumable append holds its upload (renewed while it runs): when the instance holding
   * it dies, another continues the upload after at most this long (409 until then; docs/uploads.md).
   */
  uploadLeaseSeconds: v.optional(positiveInteger('uploadLeaseSeconds'), 30),
  /**
   * How long a superseded version of a published listing keeps its file for a rollback (30 days by
   * default); then the upload sweep removes it, except the one the live version rolls back to
   * (docs/moderation.md, "Versions"). Kept files count against the seller's quota.
   */
  supersededRetentionSeconds: v.optional(positiveInteger('supersededRetentionSeconds'), 30 * 24 * 3600),
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
  /**
   * More surfaces for the frame, tried before REST, MCP and admin (core/pipeline/frame.ts): a set of
   * paths with a route table of its own, such as the testing kit's controls. Each gets the frame's
   * request id, target, JSON body reader, error framing and onError.
   */
  surfaces: v.optional(v.array(v.custom<Surface>((s) => typeof s === 'object' && s !== null && typeof (s as Surface).serves === 'function' && typeof (s as Surface).serve === 'function', 'surfaces must hold surfaces with serves(path) and serve(exchange)')), []),
  /**
   * The dashboard (docs/dashboard.md): pages for sellers at `basePath` (`/dashboard`), signed in with
   * one-time links (`admin login-link`) and kept in server-side sessions. Off unless given (`{}` for
   * the defaults); `marketkit serve` turns it on.
   */
  dashboard: v.optional(
    v.object({
      basePath: v.optional(v.pipe(v.string(), v.regex(/^(\/[A-Za-z0-9._~-]+)+$/, 'dashboard.basePath must be a path such as /dashboard (no trailing slash)')), '/dashboard'),
      /** A session ends after this long without a request: 12 hours by default. */
      sessionIdleSeconds: v.optional(positiveInteger('dashboard.sessionIdleSeconds'), 12 * 3600),
      /** ...and this long after signing in, however active: 7 days by default. */
      sessionMaxSeconds: v.optional(positiveInteger('dashboard.sessionMaxSeconds'), 7 * 24 * 3600),
      /** How long a sign-in link works: 15 minutes by default. */
      signInLinkSeconds: v.optional(positiveInteger('dashboard.signInLinkSeconds'), 15 * 60),
      /**
       * Your application's own sign-in instead of links and passkeys: given a request's method, path
       * and headers, the signed-in account's id or username, or null (docs/dashboard.md).
       */
      authenticate: v.optional(v.custom<Authenticate>((f) => typeof f === 'function', 'dashboard.authenticate must be a function (request) => account id or username, or null')),
      /** With authenticate: where a browser nobody signed in is sent (your application's sign-in page). */
      signInUrl: v.optional(v.pipe(v.string(), v.regex(/^(https?:\/\/|\/)/, 'dashboard.signInUrl must be an http(s) URL or a path'))),
      /** Self sign-up (off by default): a username and a passkey make an account, its seller status pending until an operator approves it. Not with authenticate. */
      selfSignUp: v.optional(v.boolean('dashboard.selfSignUp must be true or false'), false),
    }),
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
  /**
   * Whether the marketplace counts requests, tool calls, refusals, deliveries, ... for
   * `marketplace.metrics()` (docs/operations.md). On by default; false leaves the request path
   * without any counting, and metrics() answers nothing.
   */
  metrics: v.optional(v.boolean('metrics must be true or false'), true),
  /**
   * Traces (docs/operations.md, "Traces"): a server span per request, child spans for the storage,
   * blob and rate-limiter calls, a span per webhook delivery. `openTelemetryTracing()` from
   * marketkit/bindings/node, or any TracingPort (core/ports/tracing.ts). Left out: no spans, nothing
   * on the request path.
   */
  tracing: v.optional(port<TracingPort>('tracing', ['startSpan', 'withContext', 'active', 'extract', 'inject'], 'await openTelemetryTracing()')),
  /**
   * Told of every request once answered, for an access log: method, route template (never the raw
   * path), surface, status, duration, request id, client address, trace id (docs/operations.md).
   */
  onRequest: v.optional(v.custom<(entry: AnsweredRequest) => void>((value) => typeof value === 'function', 'onRequest must be a function (entry) => void')),
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
