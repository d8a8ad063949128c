/**
 * The one request frame every surface runs in (REST, MCP, admin, the testing kit's controls). It
 * does, once and in one place, what every answer needs: the request id (taken from the client or
 * made, and put on every answer), the split of the target into path and query, the choice of the
 * surface that serves the path, the JSON body reader with its size limit, the headers a surface
 * adds to whatever it answers (RateLimit-*, CORS), and the step from a thrown error to an answer,
 * with `onError` told of everything that is not the client's doing.
 *
 * A surface is a route table on the frame: `serves(path)` and `serve(exchange)`. It throws an
 * ApiError for a refusal; the frame answers it in the error table's shape (core/errors.ts), or in
 * the surface's own shape when it has one (MCP's JSON-RPC errors).
 */
import { ApiError, errorCatalogue, internalErrorJson, isApiError, isStorageUnavailable, storageUnavailable } from '../errors.js';
import { readJsonBody } from './body.js';
import type { MarketplaceMetrics, SurfaceName } from '../metrics/marketplace-metrics.js';
import type { GaugeChild } from '../metrics/registry.js';
import { parseTraceparent, type TracingPort } from '../ports/tracing.js';
import { requestSpan, type BodyTrace, type RequestSpan } from '../tracing/request-span.js';
import { jsonResponse, jsonTextResponse, requestIdOf, siteUrlOf, splitTarget, type CoreRequest, type CoreResponse, type RequestContext, type SiteUrls } from './request.js';

/** What onError is told of a failed request. The path is the client's, of any length: a logger shortens it (cli/serve-log.ts). */
export interface FailedRequest {
  method: string;
  path: string;
  requestId: string;
  clientAddress?: string;
  /** The request's trace id (its span's, else its traceparent's), when it has one. */
  traceId?: string;
}

export type OnError = (error: unknown, request: FailedRequest) => void;

/** One request as every surface sees it: the request, its id, path and query, and the frame's services. */
export class Exchange implements RequestContext {
  /** Headers the frame puts on the answer, whatever it is (the answer's own win): RateLimit-*, CORS. */
  readonly headers: Record<string, string> = {};
  /** The route template the surface matched (`/api/v1/assets/{id}`), for metrics and traces; unset when none did. */
  route: string | undefined;
  /** The surface's name for metrics when it differs from the surface's own (REST's signed-URL PUT and image GET are `blobs`). */
  surfaceName: SurfaceName | undefined;
  /** The request's trace id for logs, once known. */
  traceId: string | undefined;
  #siteUrl: string | undefined;
  #json: Promise<unknown> | undefined;

  constructor(
    readonly request: CoreRequest,
    readonly requestId: string,
    readonly path: string,
    readonly query: string,
    private readonly frame: FrameOptions,
  ) {}

  /** The site's root address for this request, without a trailing slash (docs/security.md, "URLs the API issues"). */
  get siteUrl(): string {
    return (this.#siteUrl ??= siteUrlOf(this.request, this.frame.siteUrls));
  }

  /** The JSON body (undefined when there is none), within the size limit: 413, 415 or 400 otherwise. */
  readJson(): Promise<unknown> {
    // Read once: the frame may look into it for a trace context (MCP's `_meta`) before the surface does.
    return (this.#json ??= readJsonBody(this.request, this.frame.maxJsonBytes));
  }

  /** Tells onError of an error that is not the client's doing (the surface answers it itself). */
  report(error: unknown): void {
    const { method, clientAddress } = this.request;
    const traceId = this.traceId ?? traceIdOf(this.request.header('traceparent'));
    this.frame.onError(error, { method, path: this.path, requestId: this.requestId, ...(clientAddress ? { clientAddress } : {}), ...(traceId ? { traceId } : {}) });
  }
}

/** A surface of the marketplace: a set of paths and how to serve them. */
export interface Surface {
  serves(path: string): boolean;
  serve(exchange: Exchange): Promise<CoreResponse>;
  /** The surface's own answer to an error it threw (MCP's JSON-RPC errors); the error table's shape without it. */
  failure?(error: unknown, exchange: Exchange): CoreResponse;
  /** Whether browser pages of the configured CORS origins may call it (REST and its signed-URL PUT; MCP checks origins itself). */
  cors?: boolean;
  /** What the request's body says of its trace (MCP's `params._meta.traceparent`), read before its span starts. */
  bodyTrace?(exchange: Exchange): Promise<BodyTrace | undefined>;
}

/**
 * Pages of other origins that may call the REST API (docs/rest.md, "Browsers (CORS)"): the
 * origins, or `*` for any. Credentials are bearer headers, never cookies, so no
 * Access-Control-Allow-Credentials.
 */
export interface CorsPolicy {
  origins: ReadonlySet<string>;
}

const corsAllowMethods = 'GET, HEAD, POST, PUT, PATCH, DELETE';
// The tus headers too: a browser's resumable upload (Uppy, tus-js-client) sends and reads them (docs/uploads.md).
const corsAllowHeaders = 'authorization, content-type, idempotency-key, x-request-id, tus-resumable, upload-length, upload-offset, upload-checksum, upload-metadata';
const corsExposeHeaders =
  'ratelimit-limit, ratelimit-remaining, ratelimit-reset, retry-after, x-request-id, idempotent-replayed, www-authenticate, location, tus-resumable, tus-version, tus-extension, tus-max-size, upload-offset, upload-length, upload-expires';
/** Seconds a browser may keep a preflight's answer (Chromium keeps at most 7200). */
const corsMaxAge = '600';

export interface FrameOptions {
  ids: { uuid(): string };
  siteUrls: string | null | SiteUrls;
  maxJsonBytes: number;
  onError: OnError;
  /** Origins whose pages may call the surfaces marked `cors`; none by default. */
  cors?: CorsPolicy;
  /** Each surface's name for metrics and logs, with its route when it has one path. */
  surfaceNames?: ReadonlyMap<Surface, { name: SurfaceName; route?: string }>;
  /** Where requests are counted (core/metrics/). */
  metrics?: MarketplaceMetrics;
  /** Told of every request once answered (the access log: cli/serve-log.ts). */
  onAnswered?: (entry: AnsweredRequest) => void;
  /** Where each request's server span goes (core/tracing/request-span.ts). */
  tracing?: TracingPort;
}

/** One request as an access log shows it: the route template, never the raw path (it may hold ids or a signature). */
export interface AnsweredRequest {
  method: string;
  route: string;
  surface: SurfaceName;
  status: number;
  durationMs: number;
  requestId: string;
  clientAddress?: string;
  /** The request's trace id: its span's, else that of the `traceparent` it sent; absent when neither has one. */
  traceId?: string;
}

/** The trace id a valid `traceparent` header names, by the tracer's own reading (W3C Trace Context: no version ff, no all-zero id), else undefined. */
export function traceIdOf(header: string | undefined): string | undefined {
  return parseTraceparent(header)?.traceId;
}

/**
 * The marketplace's `handle`: each request goes to the first surface that serves its path, else
 * to `fallback` (REST's 404 for anything that is nobody's).
 */
export function createFrame(options: FrameOptions, surfaces: readonly Surface[], fallback: Surface): (request: CoreRequest) => Promise<CoreResponse> {
  const pick = (path: string): Surface => {
    for (const surface of surfaces) if (surface.serves(path)) return surface;
    return fallback;
  };
  const cors = options.cors && options.cors.origins.size > 0 ? options.cors : null;
  const { metrics, onAnswered, tracing } = options;
  const counted = Boolean(metrics || onAnswered);
  const idle: GaugeChild = { inc() {}, dec() {}, set() {} };
  // Each surface's in-flight gauge, resolved once.
  const labels = new Map([...(options.surfaceNames ?? [])].map(([surface, { name, route }]) => [surface, { name, route: route ?? '', active: metrics?.active(name) ?? idle }]));
  const unnamed = { name: 'rest' as SurfaceName, route: '', active: metrics?.active('rest') ?? idle };
  return serveRequest;

  // One async function per request, counted or not, and no closure per request while no SDK records
  // spans (docs/performance.md, "Metrics on against metrics off", "No-op tracing against tracing off").
  async function serveRequest(received: CoreRequest): Promise<CoreResponse> {
    // Tracing with no SDK registered (the API's no-op) does no work per request: no span, no timing.
    const live = tracing !== undefined && tracing.live?.() !== false;
    const observed = counted || live;
    const started = observed ? performance.now() : 0;
    // HEAD is GET without the body (RFC 9110 9.3.2): the same status and headers, wherever GET is served.
    const head = received.method === 'HEAD';
    const request = head ? asGet(received) : received;
    const requestId = requestIdOf(request, options.ids);
    const target = splitTarget(request.target);
    const exchange = new Exchange(request, requestId, target?.path ?? '', target?.query ?? '', options);
    const surface = target ? pick(target.path) : fallback;
    const label = observed ? (labels.get(surface) ?? unnamed) : undefined;
    label?.active.inc();
    const span = live ? requestSpan(tracing, exchange, surface.bodyTrace ? () => surface.bodyTrace!(exchange) : undefined) : undefined;
    let status: number = errorCatalogue.INTERNAL_ERROR.status;
    try {
      const corsOrigin = cors && target && surface.cors && surface.serves(target.path) ? allowedOrigin(cors, request.header('origin')) : null;
      let response: CoreResponse;
      try {
        // No tunnels here. Every CONNECT is refused whatever its target (Deno hands an authority over as
        // the path `/`, so no runtime-independent answer can depend on it); Allow names what any path takes.
        if (request.method === 'CONNECT') throw new ApiError('METHOD_NOT_ALLOWED', 'CONNECT is not served: this server is no proxy.', { headers: { allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS' } });
        if (!target) throw new ApiError('NOT_FOUND', 'No such endpoint.');
        if (corsOrigin && isPreflight(request)) response = preflight();
        else if (span) {
          response = await span.run(() => {
            exchange.traceId = span.traceId || traceIdOf(request.header('traceparent'));
            return surface.serve(exchange);
          });
        } else response = await surface.serve(exchange);
      } catch (error) {
        response = surface.failure ? surface.failure(error, exchange) : errorResponse(error, exchange);
      }
      const { headers } = response;
      for (const name in exchange.headers) if (!(name in headers)) headers[name] = exchange.headers[name]!;
      headers['x-request-id'] = requestId;
      if (headers.allow && /\bGET\b/.test(headers.allow) && !/\bHEAD\b/.test(headers.allow)) headers.allow = headers.allow.replace(/\bGET\b/, 'GET, HEAD');
      if (cors && target && surface.cors && surface.serves(target.path)) {
        // Answers differ by Origin once any origin is allowed: caches must keep them apart.
        headers.vary = headers.vary ? `${headers.vary}, origin` : 'origin';
        if (corsOrigin) {
          headers['access-control-allow-origin'] = corsOrigin;
          headers['access-control-expose-headers'] = corsExposeHeaders;
        }
      }
      status = response.status;
      return head ? withoutBody(response) : response;
    } finally {
      // Every request that reached a surface is counted.
      if (label) answered(received, exchange, label, status, performance.now() - started, span);
    }
  }

  function answered(received: CoreRequest, exchange: Exchange, label: { name: SurfaceName; route: string; active: GaugeChild }, status: number, elapsedMs: number, span: RequestSpan | undefined): void {
    label.active.dec();
    const surface = exchange.surfaceName ?? label.name;
    const route = exchange.route ?? label.route;
    metrics?.request(surface, received.method, route, status, elapsedMs / 1000);
    span?.end(status, route, surface);
    if (onAnswered) {
      const { requestId, request } = exchange;
      const traceId = exchange.traceId ?? traceIdOf(request.header('traceparent'));
      onAnswered({ method: received.method, route, surface, status, durationMs: elapsedMs, requestId, ...(request.clientAddress ? { clientAddress: request.clientAddress } : {}), ...(traceId ? { traceId } : {}) });
    }
  }
}

/** The request as a GET; everything else (headers, body, addresses) read from the request itself. */
function asGet(request: CoreRequest): CoreRequest {
  return new Proxy(request, {
    get(target, name) {
      if (name === 'method') return 'GET';
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The answer to HEAD: GET's status and headers, no body; the length a body of text or bytes would have had. */
function withoutBody(response: CoreResponse): CoreResponse {
  const { body } = response;
  if (typeof body === 'string') response.headers['content-length'] ??= String(new TextEncoder().encode(body).byteLength);
  else if (body instanceof Uint8Array) response.headers['content-length'] ??= String(body.byteLength);
  else if (body && typeof (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator] === 'function') {
    // A stream (an image from the store): not read; its length is in the headers where the store knows it.
    (body as AsyncIterator<Uint8Array> & AsyncIterable<Uint8Array>)[Symbol.asyncIterator]().return?.();
  }
  return { ...response, body: null };
}

/** The Origin to allow in the answer: the request's own when listed, `*` when any is allowed; null otherwise. */
function allowedOrigin(cors: CorsPolicy, origin: string | undefined): string | null {
  if (cors.origins.has('*')) return '*';
  return origin !== undefined && cors.origins.has(origin) ? origin : null;
}

function isPreflight(request: CoreRequest): boolean {
  return request.method === 'OPTIONS' && request.header('access-control-request-method') !== undefined;
}

function preflight(): CoreResponse {
  return {
    status: 204,
    headers: { 'access-control-allow-methods': corsAllowMethods, 'access-control-allow-headers': corsAllowHeaders, 'access-control-max-age': corsMaxAge },
    body: null,
  };
}

/**
 * Any thrown value as an answer in the error table's shape: ApiErrors as themselves; a store that
 * cannot be reached as 503 SERVICE_UNAVAILABLE with Retry-After; anything else as INTERNAL_ERROR.
 * The exchange's onError hears of the last two.
 */
export function errorResponse(error: unknown, exchange: Pick<Exchange, 'report'>): CoreResponse {
  if (isApiError(error)) return jsonResponse(error.status, error.toBody(), error.headers);
  exchange.report(error);
  if (isStorageUnavailable(error)) {
    const answer = storageUnavailable();
    return jsonResponse(answer.status, answer.toBody(), answer.headers);
  }
  return jsonTextResponse(errorCatalogue.INTERNAL_ERROR.status, internalErrorJson);
}
