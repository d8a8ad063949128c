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
import { jsonResponse, jsonTextResponse, requestIdOf, siteUrlOf, splitTarget, type CoreRequest, type CoreResponse, type RequestContext, type SiteUrls } from './request.js';

/** What onError is told of a failed request. The path is the client's, of any length: a logger shortens it (cli/serve-log.ts). */
export interface FailedRequest {
  method: string;
  path: string;
  requestId: string;
  clientAddress?: string;
}

export type OnError = (error: unknown, request: FailedRequest) => void;

/** One request as every surface sees it: the request, its id, path and query, and the frame's services. */
export class Exchange implements RequestContext {
  /** Headers the frame puts on the answer, whatever it is (the answer's own win): RateLimit-*, CORS. */
  readonly headers: Record<string, string> = {};
  #siteUrl: string | undefined;

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
    return readJsonBody(this.request, this.frame.maxJsonBytes);
  }

  /** Tells onError of an error that is not the client's doing (the surface answers it itself). */
  report(error: unknown): void {
    const { method, clientAddress } = this.request;
    this.frame.onError(error, { method, path: this.path, requestId: this.requestId, ...(clientAddress ? { clientAddress } : {}) });
  }
}

/** A surface of the marketplace: a set of paths and how to serve them. */
export interface Surface {
  serves(path: string): boolean;
  serve(exchange: Exchange): Promise<CoreResponse>;
  /** The surface's own answer to an error it threw (MCP's JSON-RPC errors); the error table's shape without it. */
  failure?(error: unknown, exchange: Exchange): CoreResponse;
}

export interface FrameOptions {
  ids: { uuid(): string };
  siteUrls: string | null | SiteUrls;
  maxJsonBytes: number;
  onError: OnError;
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
  return async function handle(request) {
    const requestId = requestIdOf(request, options.ids);
    const target = splitTarget(request.target);
    const exchange = new Exchange(request, requestId, target?.path ?? '', target?.query ?? '', options);
    const surface = target ? pick(target.path) : fallback;
    let response: CoreResponse;
    try {
      if (!target) throw new ApiError('NOT_FOUND', 'No such endpoint.');
      response = await surface.serve(exchange);
    } catch (error) {
      response = surface.failure ? surface.failure(error, exchange) : errorResponse(error, exchange);
    }
    const { headers } = response;
    for (const name in exchange.headers) if (!(name in headers)) headers[name] = exchange.headers[name]!;
    headers['x-request-id'] = requestId;
    return response;
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
