import type { Marketplace } from '../../core/marketplace.js';
import { statusOf } from '../../core/errors.js';
import { coreRequestFromFetch, fetchResponseFromCore } from '../../core/http/fetch.js';
import { jsonContentType } from '../../core/pipeline/request.js';
import { defaultMaxHeaderBytes, internalErrorResponse, refusalLikeNode } from '../fetch/index.js';
import { closingResponse, isClosingConnection, settleUnread, timedBodyOf } from '../fetch/timed-body.js';
import { AddressCounter, BodyWatchdog, isLoopbackAddress, resolveLimits, tooManyConnectionsBody, tooManyConnectionsStatus, type ConnectionLimits } from '../limits.js';
import { denoGlobal, type DenoHttpServer, type DenoServeHandlerInfo } from './deno-runtime.js';

export type { DenoGlobal, DenoHttpServer, DenoServeHandlerInfo, DenoServeOptions } from './deno-runtime.js';
export { defaultLimits, type ConnectionLimits } from '../limits.js';
export { isClosingConnection } from '../fetch/timed-body.js';

export interface DenoHandlerOptions extends Omit<ConnectionLimits, 'headersTimeoutSeconds' | 'keepAliveTimeoutSeconds'> {
  /** The prefix the handler is mounted under in a larger app (`/market`), so that the URLs it builds include it. */
  basePath?: string;
  /** Requests whose line and headers exceed this get 431, as on Node and Bun (default 16 KiB; Deno has no limit of its own). */
  maxHeaderBytes?: number;
}

export type DenoHandler = (request: Request, info: DenoServeHandlerInfo) => Promise<Response>;

/**
 * The handler for `Deno.serve(handler)`, or to call from your own handler for the requests that
 * `marketplace.owns(path)`. Deno's parser accepts what Node's refuses; this refuses it the same
 * way: oversized headers 431; no Host, or a repeated Host or Content-Length, 400.
 *
 * Limits (docs/security.md): a JSON body must be whole within `bodyTimeoutSeconds` and an upload
 * keep `uploadMinBytesPerSecond`, else 408; one client address may have
 * `maxConnectionsPerAddress` requests in flight (Deno.serve shows requests, not connections), past
 * which it gets 429. What an answer leaves unread of a body (a refused upload) is read and
 * discarded first, within bindings/limits.ts's refusedBodyDrain, so that the client reads the
 * answer; past that, or after a 408, the answer ends with a deliberate error after its last byte
 * (`isClosingConnection(error)` is true for it in your `onError`), for Deno to close the connection.
 */
export function denoHandler(marketplace: Marketplace, options: DenoHandlerOptions = {}): DenoHandler {
  const basePath = options.basePath ?? '';
  const maxHeaderBytes = options.maxHeaderBytes ?? defaultMaxHeaderBytes;
  const limits = resolveLimits(options, 'marketkit/bindings/deno');
  const watchdog = new BodyWatchdog(limits);
  const inFlight = new AddressCounter(limits);
  return async (request, info) => {
    const refused = refusalLikeNode(request, maxHeaderBytes);
    if (refused) return refused;
    const address = info.remoteAddr.hostname;
    const counted = inFlight.take(address);
    if (counted === false) return tooManyRequests(request);
    try {
      const core = coreRequestFromFetch(request, basePath);
      // A peer on loopback reached us on loopback: the MCP endpoint's Host check applies.
      core.loopback = isLoopbackAddress(address);
      core.clientAddress = address;
      const body = timedBodyOf(request, watchdog);
      core.body = body;
      const response = await marketplace.handle(core);
      const settled = settleUnread(body);
      if (settled !== true && !(await settled)) return closingResponse(response) ?? fetchResponseFromCore(response);
      return fetchResponseFromCore(response);
    } finally {
      if (counted !== null) inFlight.release(counted);
    }
  };
}

function tooManyRequests(request: Request): Response {
  const response = { status: tooManyConnectionsStatus, headers: { 'content-type': jsonContentType, 'retry-after': '1' }, body: tooManyConnectionsBody };
  if (request.body === null) return new Response(response.body, { status: response.status, headers: { ...response.headers, connection: 'close' } });
  // Its body is not read: closed after the answer, as any answer that leaves a body unread.
  void request.body.cancel().catch(() => {});
  return closingResponse(response)!;
}

export interface ServeOptions extends DenoHandlerOptions, ConnectionLimits {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface RunningServer {
  server: DenoHttpServer;
  /** The site URL it listens on: `http://127.0.0.1:8787`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts `Deno.serve` for the marketplace. Resolves once it listens. `Deno.serve` has no headers
 * or keep-alive timeout and shows no connections (measured on Deno 2.9: a silent connection stays
 * open for as long as the client keeps it): `headersTimeoutSeconds` and `keepAliveTimeoutSeconds`
 * cannot be enforced here, and the cap counts requests in flight. See docs/security.md.
 */
export async function serve(marketplace: Marketplace, options: ServeOptions = {}): Promise<RunningServer> {
  const stop = new AbortController();
  let listening!: () => void;
  const listened = new Promise<void>((resolve) => (listening = resolve));
  const server = denoGlobal().serve(
    {
      port: options.port ?? 0,
      hostname: options.host ?? '127.0.0.1',
      signal: stop.signal,
      onListen: () => listening(),
      // Only a bug gets here (the core answers every error itself), or the deliberate close of a
      // connection whose request body was left unread, whose answer is already sent.
      onError: (error) =>
        isClosingConnection(error)
          ? new Response(null, { status: statusOf('INTERNAL_ERROR') })
          : internalErrorResponse(),
    },
    denoHandler(marketplace, options),
  );
  await listened;
  const { hostname, port } = server.addr;
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  return {
    server,
    url: `http://${host}:${port}`,
    close: async () => {
      stop.abort();
      await server.finished;
    },
  };
}
