import type { TSchema } from '@sinclair/typebox';
import { authenticate } from '../auth/authenticate.js';
import { ApiError, errorCatalogue, internalErrorJson, invalidInput, isApiError, isStorageUnavailable, storageUnavailable } from '../errors.js';
import type { OperationContext, Ports, Settings } from '../operations/context.js';
import { checkHealth } from '../operations/health.js';
import { sniffImageType } from '../operations/uploads.js';
import { receiveUpload } from '../operations/upload-lifecycle.js';
import { blobRoutePrefix, storagePathOf, type UploadSigner } from './blob-urls.js';
import { readJsonBody } from './body.js';
import { jsonResponse, jsonTextResponse, requestIdOf, siteUrlOf, splitTarget, type CoreRequest, type CoreResponse, type RequestContext, type RouteHandler, type SiteUrls } from './request.js';
import { apiBase, createRouteMatcher, type Method, type RestRoute } from './routes.js';
import { takeRate } from './rate-limit.js';
import { runOperation } from './run-operation.js';

export interface HttpHandlerOptions {
  ports: Ports;
  settings: Settings;
  signer: UploadSigner;
  /** The configured site URL, or null to derive it from each request (siteUrls). */
  siteUrl: string | null;
  /** The site URL of each request (allowed hosts, the listen address); without it, siteUrl or a loopback Host. */
  siteUrls?: SiteUrls;
  maxJsonBytes: number;
  /**
   * Called with every error that is not a client's fault; the client sees INTERNAL_ERROR only. The
   * path is the client's, of any length: a logger shortens it (cli/serve-log.ts).
   */
  onError: (error: unknown, request: { method: string; path: string; requestId: string; clientAddress?: string }) => void;
  /** More routes under /api/v1 served by later layers (OpenAPI, auth). */
  extraRoutes?: { method: Method; path: string; handle: RouteHandler }[];
}

/** The runtime-neutral handler of everything under /api/v1. */
export function createHttpHandler(options: HttpHandlerOptions) {
  const { ports, settings, signer } = options;
  const match = createRouteMatcher(
    (options.extraRoutes ?? []).map(({ method, path, handle }) => ({ method, path, target: { kind: 'custom' as const, handle } })),
  );

  async function dispatch(request: CoreRequest, requestId: string): Promise<CoreResponse> {
    const target = splitTarget(request.target);
    if (!target) throw new ApiError('NOT_FOUND', 'No such endpoint.');
    const found = match(request.method, target.path);
    if (!found.found) {
      if (found.allow.length === 0) throw new ApiError('NOT_FOUND', 'No such endpoint.');
      throw new ApiError('METHOD_NOT_ALLOWED', `Use ${found.allow.join(' or ')} here.`, { headers: { allow: found.allow.join(', ') } });
    }
    const context: RequestContext = { requestId, siteUrl: siteUrlOf(request, options.siteUrls ?? options.siteUrl), path: target.path, query: target.query };
    if (found.target.kind === 'custom') return found.target.handle(request, context);
    if (found.target.kind === 'rest') return serveRest(request, context, found.target.route, found.params);
    switch (found.target.name) {
      case 'health': {
        const report = await checkHealth(ports, settings);
        return jsonResponse(report.status === 'ok' ? 200 : 503, report, { 'cache-control': 'no-store' });
      }
      case 'blobPut':
        return serveUpload(request, context);
      case 'blobGet':
        return serveImage(context);
    }
  }

  async function serveRest(request: CoreRequest, context: RequestContext, route: RestRoute, params: Record<string, string>) {
    // A promise only for a store that asks a server (PostgreSQL): memory and SQLite add no await here.
    let stamp = ports.reads.observe();
    if (typeof stamp !== 'number') stamp = await stamp;
    const caller = await authenticate(ports, request, stamp);
    const rateHeaders = await takeRate(ports, caller, route.operation.requestClass);
    try {
      const ctx: OperationContext = { caller, ports, settings, signer, siteUrl: context.siteUrl, stamp };
      const result = await runOperation(ctx, route.operation, async () => {
        const input = route.query
          ? queryInput(context.query, route.operation.input)
          : await bodyInput(request, route.method, options.maxJsonBytes);
        for (const [param, field] of Object.entries(route.params ?? {})) {
          if (Object.prototype.hasOwnProperty.call(input, field)) throw invalidInput(field, 'is not a field that can be set here');
          input[field] = decodeParam(params[param]!);
        }
        return input;
      });
      const status = typeof route.status === 'function' ? (route.status as (r: unknown) => number)(result.value) : (route.status ?? 200);
      return jsonTextResponse(status, result.json, rateHeaders);
    } catch (error) {
      if (isApiError(error)) throw error.withHeaders(rateHeaders);
      throw error;
    }
  }

  async function serveUpload(request: CoreRequest, context: RequestContext): Promise<CoreResponse> {
    const storagePath = storagePathOf(context.path.slice(apiBase.length + '/blobs/'.length));
    if (!storagePath) throw new ApiError('NOT_FOUND', 'No such upload URL.');
    const { check, maxBytes } = await signer.verify(storagePath, new URLSearchParams(context.query), ports.clock.now());
    if (check === 'expired') throw new ApiError('FORBIDDEN', 'This upload URL has expired; ask for a new one.');
    if (check !== 'ok') throw new ApiError('FORBIDDEN', 'This upload URL is not valid: its signature does not match.');
    const declared = request.header('content-length');
    const contentType = (request.header('content-type') ?? 'application/octet-stream').slice(0, 200);
    const info = await receiveUpload(ports, settings, storagePath, {
      stream: request.body ?? emptyBody(),
      contentType,
      declaredLength: declared && /^\d+$/.test(declared) ? Number(declared) : null,
      maxBytes,
    });
    return jsonResponse(200, { success: true, storage_path: storagePath, size: info.size, content_type: info.contentType });
  }

  /** How long the signed URL an image redirects to lives; the redirect is cached for half of it. */
  const imageRedirectTtlMs = 10 * 60 * 1000;

  async function serveImage(context: RequestContext): Promise<CoreResponse> {
    const storagePath = storagePathOf(context.path.slice(blobRoutePrefix.length));
    // Only gallery images are public; an asset's file is never served here.
    if (!storagePath || !/^assets\/[^/]+\/images\//.test(storagePath)) throw new ApiError('NOT_FOUND', 'No such image.');
    // Only a confirmed image of a listing that exists (docs/security.md, "Images"): bytes the store
    // holds at an image path without that record (an upload not confirmed, a deleted listing's) are not served.
    const images = await ports.storage.listImages(storagePath.split('/', 2)[1]!);
    if (!images.some((image) => image.storage_path === storagePath)) throw new ApiError('NOT_FOUND', 'No such image.');
    const start = await ports.blobs.readStart(storagePath, 16);
    const type = start && sniffImageType(start);
    if (!type) throw new ApiError('NOT_FOUND', 'No such image.');
    if (ports.blobs.readUrl) {
      // The store serves the bytes: a short-lived signed URL, answered with the sniffed type.
      const expiresAt = new Date(ports.clock.now() + imageRedirectTtlMs);
      const location = await ports.blobs.readUrl(storagePath, { contentType: type, expiresAt });
      return { status: 302, headers: { location, 'cache-control': `private, max-age=${imageRedirectTtlMs / 2000}` }, body: null };
    }
    const blob = await ports.blobs.get(storagePath);
    if (!blob) throw new ApiError('NOT_FOUND', 'No such image.');
    return {
      status: 200,
      headers: {
        'content-type': type,
        'content-length': String(blob.size),
        'cache-control': 'public, max-age=86400, immutable',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'",
      },
      body: blob.body,
    };
  }

  return async function handle(request: CoreRequest): Promise<CoreResponse> {
    const requestId = requestIdOf(request, ports.ids);
    let response: CoreResponse;
    try {
      response = await dispatch(request, requestId);
    } catch (error) {
      response = errorResponse(error, () =>
        options.onError(error, {
          method: request.method,
          path: splitTarget(request.target)?.path ?? '',
          requestId,
          ...(request.clientAddress ? { clientAddress: request.clientAddress } : {}),
        }),
      );
    }
    response.headers['x-request-id'] = requestId;
    return response;
  };
}

/**
 * Any thrown value as a response: ApiErrors as themselves, a store that cannot be reached as 503
 * SERVICE_UNAVAILABLE with Retry-After, everything else as INTERNAL_ERROR. `report` hears the last two.
 */
export function errorResponse(error: unknown, report: () => void): CoreResponse {
  if (isApiError(error)) return jsonResponse(error.status, error.toBody(), error.headers);
  report();
  if (isStorageUnavailable(error)) {
    const answer = storageUnavailable();
    return jsonResponse(answer.status, answer.toBody(), answer.headers);
  }
  return jsonTextResponse(errorCatalogue.INTERNAL_ERROR.status, internalErrorJson);
}

async function* emptyBody(): AsyncIterable<Uint8Array> {}

function decodeParam(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ApiError('NOT_FOUND', 'No such endpoint.');
  }
}

async function bodyInput(request: CoreRequest, method: string, maxBytes: number): Promise<Record<string, unknown>> {
  if (method === 'GET' || method === 'DELETE') return {};
  const body = await readJsonBody(request, maxBytes);
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidInput('body', 'must be a JSON object');
  return { ...(body as Record<string, unknown>) };
}

/** Query parameters as input fields, numbers coerced where the schema wants numbers. */
function queryInput(query: string, schema: TSchema): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const seen = new Set<string>();
  let params: URLSearchParams;
  try {
    // URLSearchParams replaces bad percent-encoding instead of throwing; check it first.
    decodeURIComponent(query.replace(/\+/g, ' '));
    params = new URLSearchParams(query);
  } catch {
    throw invalidInput('query', 'is not valid percent-encoding');
  }
  for (const [key, value] of params) {
    if (seen.has(key)) throw invalidInput(key, 'must be given once');
    seen.add(key);
    const type = (schema.properties?.[key] as TSchema | undefined)?.type;
    const numeric = (type === 'integer' || type === 'number') && /^-?\d{1,15}$/.test(value);
    Object.defineProperty(input, key, { value: numeric ? Number(value) : value, enumerable: true, writable: true, configurable: true });
  }
  return input;
}

