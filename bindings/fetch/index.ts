import type { Marketplace } from '../../core/marketplace.js';
import { errorCatalogue, internalErrorJson, parserRefusalStatus } from '../../core/errors.js';
import { coreRequestFromFetch, fetchResponseFromCore } from '../../core/http/fetch.js';
import { jsonContentType } from '../../core/pipeline/request.js';
import { BodyWatchdog, resolveLimits, type ConnectionLimits } from '../limits.js';
import { settleUnread, timedBodyOf } from './timed-body.js';

export { isLoopbackAddress, defaultLimits, type ConnectionLimits } from '../limits.js';
export { isClosingConnection } from './timed-body.js';

export interface FetchHandlerOptions extends Pick<ConnectionLimits, 'bodyTimeoutSeconds' | 'uploadMinBytesPerSecond' | 'uploadRateWindowSeconds'> {
  /** The prefix the handler is mounted under (`/market`), so that the URLs it builds include it. */
  basePath?: string;
  /**
   * Whether a request arrived on a loopback address, for the MCP endpoint's Host check against DNS
   * rebinding (docs/mcp.md). A plain fetch host cannot tell, so by default the check is skipped and
   * only the Origin is checked; the Bun and Deno bindings answer it from the connection.
   */
  loopback?: (request: Request) => boolean;
  /**
   * Refuse requests whose header section (request line and headers) is larger than this with 431,
   * as Node and Bun do at 16 KiB. Off by default: most hosts enforce a limit of their own.
   */
  maxHeaderBytes?: number;
  /**
   * The client's address for a request, if the host tells it (`CoreRequest.clientAddress`, for
   * limits per client address): e.g. `(request) => request.headers.get('cf-connecting-ip') ?? undefined`
   * on a platform that sets such a header. Unset by default: a plain fetch host cannot tell.
   */
  clientAddress?: (request: Request) => string | undefined;
}

export type FetchHandler = (request: Request) => Promise<Response>;

/** Node's and Bun's limit on the request line and headers together. */
export const defaultMaxHeaderBytes = 16 * 1024;

/**
 * A WHATWG fetch handler, `(request) => Promise<Response>`, for any host that speaks it: Hono,
 * Next.js route handlers, Deno Deploy- and Workers-style platforms. The request body is passed on
 * as the stream it is (an upload is never buffered whole), and a streamed response stays a stream.
 * The body limits apply (a JSON body whole within `bodyTimeoutSeconds`, an upload at
 * `uploadMinBytesPerSecond`); headers, idle connections and connections per address are the
 * host's to limit (docs/security.md).
 */
export function fetchHandler(marketplace: Marketplace, options: FetchHandlerOptions = {}): FetchHandler {
  const { basePath = '', loopback, maxHeaderBytes, clientAddress } = options;
  const watchdog = new BodyWatchdog(resolveLimits(options, 'marketkit/bindings/fetch'));
  return async (request) => {
    if (maxHeaderBytes !== undefined && headerBytes(request) > maxHeaderBytes) return bareRefusal(parserRefusalStatus.headersTooLarge);
    const core = coreRequestFromFetch(request, basePath);
    const body = timedBodyOf(request, watchdog);
    core.body = body;
    if (loopback) core.loopback = loopback(request);
    if (clientAddress) core.clientAddress = clientAddress(request);
    const response = await marketplace.handle(core);
    // The rest of a refused body is read (within bounds) so that the client reads the answer, not a reset.
    const settled = settleUnread(body);
    if (settled !== true) await settled;
    return fetchResponseFromCore(response);
  };
}

/** The size of the request line and headers as they were sent (close enough: names are lower-cased). */
export function headerBytes(request: Request): number {
  let bytes = request.method.length + request.url.length + 12;
  request.headers.forEach((value, name) => {
    bytes += name.length + value.length + 4;
  });
  return bytes;
}

/**
 * A refusal of the kind Node's and Bun's HTTP parsers send before any application code runs
 * (400 for a bad Host, 431 for oversized headers): no body, and the connection closed.
 */
export function bareRefusal(status: (typeof parserRefusalStatus)['malformed' | 'headersTooLarge']): Response {
  return new Response(null, { status, headers: { connection: 'close' } });
}

/**
 * What Node's HTTP parser refuses before the application sees it, checked on a runtime's Request
 * where the runtime lets it through (field notes: Deno takes oversized headers and a missing Host;
 * Bun and Deno join a repeated Host or Content-Length into `a, b`). Null when the request is fine.
 * Node's answer is the one every binding gives: 431 or 400, bodiless.
 */
export function refusalLikeNode(request: Request, maxHeaderBytes = defaultMaxHeaderBytes): Response | null {
  if (headerBytes(request) > maxHeaderBytes) return bareRefusal(parserRefusalStatus.headersTooLarge);
  const host = request.headers.get('host');
  if (host === null || host.includes(',')) return bareRefusal(parserRefusalStatus.malformed);
  if (request.headers.get('content-length')?.includes(',')) return bareRefusal(parserRefusalStatus.malformed);
  return null;
}

/** A server's last-resort answer when its handler threw (only a bug gets there): 500 INTERNAL_ERROR. */
export function internalErrorResponse(): Response {
  return new Response(internalErrorJson, { status: errorCatalogue.INTERNAL_ERROR.status, headers: { 'content-type': jsonContentType } });
}
