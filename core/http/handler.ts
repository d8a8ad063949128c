import { authenticateAndTake } from '../auth/authenticate.js';
import { ApiError, invalidInput, statusOf } from '../errors.js';
import type { OperationContext, Ports, Settings } from '../operations/context.js';
import { checkHealth } from '../operations/health.js';
import { sniffImageType } from '../operations/image-confirm.js';
import { versionsOf } from '../ports/versions.js';
import { receiveUpload } from '../operations/upload-lifecycle.js';
import { blobRoutePrefix, storagePathOf, type UploadSigner } from '../operations/blob-urls.js';
import { jsonResponse, jsonTextResponse, type CoreResponse, type RouteHandler } from '../pipeline/request.js';
import { apiBase, restRoutes, type RestRoute } from './routes.js';
import { createRouteTable, type Method, type RouteMatch, type RouteRow } from '../pipeline/router.js';
import type { Exchange, Surface } from '../pipeline/frame.js';
import { runOperation } from '../pipeline/run-operation.js';
import { decodeParam, queryInput, routed } from '../pipeline/route-input.js';
import { blobGetRoute, blobPutRoute, healthRoute } from './system-routes.js';
import { replayedHeader } from '../pipeline/idempotency.js';

export interface RestSurfaceOptions {
  ports: Ports;
  settings: Settings;
  signer: UploadSigner;
  /** More routes under /api/v1 served by later layers (OpenAPI, auth). */
  extraRoutes?: { method: Method; path: string; handle: RouteHandler }[];
}

/** Endpoints the core serves itself, outside the operation table (declared in core/http/system-routes.ts). */
type SystemRoute = 'health' | 'blobPut' | 'blobGet';

type RouteTarget =
  | { kind: 'rest'; route: RestRoute }
  | { kind: 'system'; name: SystemRoute }
  /** Served by a later layer (OpenAPI, auth) through the same routing. */
  | { kind: 'custom'; handle: RouteHandler };

/**
 * The REST API under /api/v1 as a surface of the frame (core/pipeline/frame.ts): the route table
 * (core/http/routes.ts) with health, the signed-URL PUT and the image GET. It is also the frame's
 * fallback: any path no surface serves is its 404.
 */
export function restSurface(options: RestSurfaceOptions): Surface {
  const deps: RestDeps = { ports: options.ports, settings: options.settings, signer: options.signer };
  const rows: RouteRow<RouteTarget>[] = [
    { method: healthRoute.method, path: `${apiBase}${healthRoute.path}`, target: { kind: 'system', name: 'health' } },
    { method: blobPutRoute.method, path: `${apiBase}${blobPutRoute.path}`, target: { kind: 'system', name: 'blobPut' } },
    { method: blobGetRoute.method, path: `${apiBase}${blobGetRoute.path}`, target: { kind: 'system', name: 'blobGet' } },
    ...restRoutes.map((route) => ({ method: route.method, path: `${apiBase}${route.path}`, target: { kind: 'rest' as const, route } })),
    ...(options.extraRoutes ?? []).map(({ method, path, handle }) => ({ method, path: `${apiBase}${path}`, target: { kind: 'custom' as const, handle } })),
  ];
  const match = createRouteTable(rows);
  const serve = async (exchange: Exchange) => serveRouted(deps, exchange, routed(match(exchange.request.method, exchange.path), exchange.path));
  return { serves: (path) => path === apiBase || path.startsWith(`${apiBase}/`), serve, cors: true };
}

/** What serving a REST request needs: the ports, the settings, the upload URLs' signer. */
interface RestDeps {
  ports: Ports;
  settings: Settings;
  signer: UploadSigner;
}

/** The request to what its route names: an operation, one of the system routes, or a later layer's handler. */
async function serveRouted(deps: RestDeps, exchange: Exchange, found: Extract<RouteMatch<RouteTarget>, { found: true }>): Promise<CoreResponse> {
  exchange.route = found.route;
  if (found.target.kind === 'custom') return found.target.handle(exchange.request, exchange);
  if (found.target.kind === 'rest') return serveRest(deps, exchange, found.target.route, found.params);
  switch (found.target.name) {
    case 'health': {
      const report = await checkHealth(deps.ports, deps.settings);
      return jsonResponse(report.status === 'ok' ? 200 : statusOf('SERVICE_UNAVAILABLE'), report, { 'cache-control': 'no-store' });
    }
    case 'blobPut':
      exchange.surfaceName = 'blobs';
      return serveUpload(deps, exchange);
    case 'blobGet':
      exchange.surfaceName = 'blobs';
      return serveImage(deps, exchange);
  }
}

/** An operation of the table: the caller authenticated and counted, its input read, its answer as JSON. */
async function serveRest({ ports, settings, signer }: RestDeps, exchange: Exchange, route: RestRoute, params: Record<string, string>): Promise<CoreResponse> {
  // A promise only for a store that asks a server (PostgreSQL): memory and SQLite add no await here.
  let stamp = ports.reads.observe();
  if (typeof stamp !== 'number') stamp = await stamp;
  const { caller, rateHeaders } = await authenticateAndTake(ports, exchange.request, route.operation.requestClass, stamp);
  Object.assign(exchange.headers, rateHeaders);
  const ctx: OperationContext = { caller, ports, settings, signer, siteUrl: exchange.siteUrl, stamp };
  const key = route.method === 'GET' ? undefined : exchange.request.header('idempotency-key');
  const result = await runOperation(ctx, route.operation, async () => {
    const input = route.query ? queryInput(exchange.query, route.operation.input) : await bodyInput(exchange, route.method);
    for (const [param, field] of Object.entries(route.params ?? {})) {
      if (Object.prototype.hasOwnProperty.call(input, field)) throw invalidInput(field, 'is not a field that can be set here');
      input[field] = decodeParam(params[param]!);
    }
    return input;
  }, key === undefined ? undefined : { key, surface: 'rest' });
  const status = typeof route.status === 'function' ? (route.status as (r: unknown) => number)(result.value) : (route.status ?? 200);
  return jsonTextResponse(status, result.json, result.replayed ? { ...replayedHeader } : undefined);
}

/** The signed-URL PUT: the URL checked, then the body streamed into the blob store. */
async function serveUpload({ ports, settings, signer }: RestDeps, { request, path, query }: Exchange): Promise<CoreResponse> {
  const storagePath = storagePathOf(path.slice(apiBase.length + '/blobs/'.length));
  if (!storagePath) throw new ApiError('NOT_FOUND', 'No such upload URL.');
  const { check, maxBytes } = await signer.verify(storagePath, new URLSearchParams(query), ports.clock.now());
  if (check === 'expired') throw new ApiError('FORBIDDEN', 'This upload URL has expired; ask for a new one.');
  if (check !== 'ok') throw new ApiError('FORBIDDEN', 'This upload URL is not valid: its signature does not match.');
  // A store that takes PUTs itself gets here only for a file declared past its single-PUT limit (S3: 5 GiB).
  const singlePut = ports.blobs.maxDirectUploadBytes;
  if (ports.blobs.issueDirectUpload && singlePut !== undefined && maxBytes > singlePut) {
    const message = `one PUT takes at most ${singlePut} bytes on this store: send this file to upload_url, the resumable protocol (docs/uploads.md)`;
    throw new ApiError('PAYLOAD_TOO_LARGE', `The file is too large for a single PUT: ${message}.`, { details: [{ path: 'upload_url', message }] });
  }
  const declared = request.header('content-length');
  ports.metrics?.uploadsInProgress.inc();
  const info = await receiveUpload(ports, settings, storagePath, {
    stream: request.body ?? emptyBody(),
    contentType: request.header('content-type') ?? null,
    declaredLength: declared && /^\d+$/.test(declared) ? Number(declared) : null,
    maxBytes,
  }).finally(() => ports.metrics?.uploadsInProgress.dec());
  ports.metrics?.uploadBytes.inc(info.size);
  return jsonResponse(200, { success: true, storage_path: storagePath, size: info.size, content_type: info.contentType });
}

/** A gallery image's storage path: a listing's (`assets/{id}/images/...`) or a version's (`assets/{id}/versions/{vid}/images/...`). */
const imagePath = /^assets\/([^/]+)\/(?:versions\/([^/]+)\/)?images\//;

/** How long the signed URL an image redirects to lives; the redirect is cached for half of it. */
const imageRedirectTtlMs = 10 * 60 * 1000;

/** A gallery image: a redirect to the store's signed URL where it has one, else the bytes. */
async function serveImage({ ports }: RestDeps, { path }: Exchange): Promise<CoreResponse> {
  const storagePath = storagePathOf(path.slice(blobRoutePrefix.length));
  // Only gallery images are public; an asset's file is never served here.
  const place = storagePath ? imagePath.exec(storagePath) : null;
  if (!storagePath || !place) throw new ApiError('NOT_FOUND', 'No such image.');
  // Only a confirmed image of a listing that exists, or of its version's new gallery (for its review;
  // docs/security.md, "Images"): bytes the store holds at an image path without that record (an
  // upload not confirmed, a deleted listing's) are not served.
  const [, assetId, versionId] = place;
  const shown = (images: readonly { storage_path: string }[] | null | undefined) => !!images?.some((image) => image.storage_path === storagePath);
  const version = versionId ? await versionsOf(ports.storage)?.getVersion(versionId) : null;
  if (!shown(await ports.storage.listImages(assetId!)) && !(version?.asset_id === assetId && shown(version?.gallery))) throw new ApiError('NOT_FOUND', 'No such image.');
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

async function* emptyBody(): AsyncIterable<Uint8Array> {}

async function bodyInput(exchange: Exchange, method: string): Promise<Record<string, unknown>> {
  if (method === 'GET' || method === 'DELETE') return {};
  const body = await exchange.readJson();
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidInput('body', 'must be a JSON object');
  return { ...(body as Record<string, unknown>) };
}
