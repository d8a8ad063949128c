import type { Marketplace } from '../../core/marketplace.js';
import { coreRequestFromFetch, fetchResponseFromCore } from '../../core/http/fetch.js';
import { jsonContentType } from '../../core/pipeline/request.js';
import { internalErrorResponse, refusalLikeNode } from '../fetch/index.js';
import { settleUnread, timedBodyOf } from '../fetch/timed-body.js';
import { AddressCounter, BodyWatchdog, isLoopbackAddress, resolveLimits, tooManyConnectionsBody, tooManyConnectionsStatus, type ConnectionLimits } from '../limits.js';
import { bunGlobal, type BunServer } from './bun-runtime.js';

export type { BunGlobal, BunServeOptions, BunServer } from './bun-runtime.js';
export { defaultLimits, type ConnectionLimits } from '../limits.js';

export interface BunHandlerOptions extends Omit<ConnectionLimits, 'headersTimeoutSeconds'> {
  /** The prefix the handler is mounted under in a larger app (`/market`), so that the URLs it builds include it. */
  basePath?: string;
  /**
   * Seconds a short request body may go without a byte (default 60; whole seconds, at most 255,
   * checked by Bun every 4 s or so). Bun has one idle timer per connection: the handler sets it to
   * this while a short body arrives, turns it off once the body is whole (or at once for a request
   * without one) while the server works on the answer, and sets it to `keepAliveTimeoutSeconds` once
   * the request is answered (Bun's `idleTimeout` is then only the first request's). While a long body
   * (an upload, or more than 16 KiB) arrives, the timer is off and the body limits time the body:
   * Bun's timer is not reset by a slow body's bytes, and would cut a slow upload that keeps its rate.
   */
  idleTimeoutSeconds?: number;
}

export type BunFetch = (request: Request, server: BunServer) => Promise<Response>;

/** Bodies larger than this (or of unknown length) may take long: Bun's idle timer is off while they arrive. */
const longBodyBytes = 16 * 1024;

/**
 * The handler for `Bun.serve({ fetch })`, or to call from your own `fetch` for the requests that
 * `marketplace.owns(path)`. A repeated Host or Content-Length, which Bun joins into `a, b`, gets
 * Node's 400 (Bun itself refuses oversized headers and a missing Host, as Node does).
 *
 * Limits (docs/security.md): a JSON body must be whole within `bodyTimeoutSeconds` and an upload
 * keep `uploadMinBytesPerSecond`, else 408; one client address may have
 * `maxConnectionsPerAddress` requests in flight (Bun shows requests, not connections), past which
 * it gets 429. An answer that leaves the request body unread closes the connection.
 */
export function bunHandler(marketplace: Marketplace, options: BunHandlerOptions = {}): BunFetch {
  const basePath = options.basePath ?? '';
  const limits = resolveLimits(options, 'marketkit/bindings/bun');
  const watchdog = new BodyWatchdog(limits);
  const inFlight = new AddressCounter(limits);
  const keepAliveSeconds = bunSeconds(limits.keepAliveTimeoutSeconds);
  const requestIdleSeconds = bunSeconds(options.idleTimeoutSeconds ?? 60);
  return async (request, server) => {
    const refused = refusalLikeNode(request);
    if (refused) return refused;
    const address = server.requestIP(request)?.address;
    const counted = inFlight.take(address);
    if (counted === false) return tooManyRequests();
    const core = coreRequestFromFetch(request, basePath);
    // A peer on loopback reached us on loopback: the MCP endpoint's Host check applies.
    core.loopback = isLoopbackAddress(address);
    core.clientAddress = address;
    const body = timedBodyOf(request, watchdog);
    core.body = body;
    // Settings of the connection's one timer (a few nanoseconds each), no timer of our own. It is off
    // while the server works on the answer (once the body is whole, or at once without one): the
    // client is silent then because the server is, and a store's long wait (a copy of gigabytes) is
    // not a client holding the connection. While a short body arrives it is requestIdleSeconds.
    server.timeout(request, body === null || isLong(request) ? 0 : requestIdleSeconds);
    if (body !== null) body.onWhole = () => server.timeout(request, 0);
    try {
      const response = await marketplace.handle(core);
      const settled = settleUnread(body);
      if (settled !== true && !(await settled)) response.headers.connection = 'close';
      return fetchResponseFromCore(response);
    } finally {
      server.timeout(request, keepAliveSeconds);
      if (counted !== null) inFlight.release(counted);
    }
  };
}

/** Bun takes whole seconds, at most 255. */
function bunSeconds(seconds: number): number {
  return Math.min(255, Math.ceil(seconds));
}

function isLong(request: Request): boolean {
  if (request.method === 'PUT' || request.method === 'PATCH') return true;
  const declared = request.headers.get('content-length');
  return declared === null || Number(declared) > longBodyBytes;
}

function tooManyRequests(): Response {
  return new Response(tooManyConnectionsBody, { status: tooManyConnectionsStatus, headers: { 'content-type': jsonContentType, 'retry-after': '1', connection: 'close' } });
}

/**
 * Bun's headers timeout is its own, fixed at 10 s (measured on Bun 1.4: a silent or dripping
 * connection is closed 10-14 s after it opened, whatever the idleTimeout): `headersTimeoutSeconds`
 * cannot change it on Bun.
 */
export interface ServeOptions extends BunHandlerOptions, ConnectionLimits {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface RunningServer {
  server: BunServer;
  /** The site URL it listens on: `http://127.0.0.1:8787`. */
  url: string;
  close(): Promise<void>;
}

/** Starts `Bun.serve` for the marketplace, with the limits of docs/security.md. */
export async function serve(marketplace: Marketplace, options: ServeOptions = {}): Promise<RunningServer> {
  const limits = resolveLimits(options, 'marketkit/bindings/bun serve');
  const server = bunGlobal().serve({
    port: options.port ?? 0,
    hostname: options.host ?? '127.0.0.1',
    // The connection's idle timer until its first request; the handler sets it for each request after.
    idleTimeout: bunSeconds(limits.keepAliveTimeoutSeconds),
    // Bun shares a port with another process listening on it unless told not to: a port in use
    // must be an error (EADDRINUSE), as on Node and Deno, not two servers answering in turn.
    reusePort: false,
    // The core enforces the upload limits as the body streams in, with a 413 of its own; Bun's
    // default (128 MB, below the default file limit) would cut in first.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    development: false,
    fetch: bunHandler(marketplace, { ...options, ...limits }),
    // Only a bug gets here (the core answers every error itself).
    error: () => internalErrorResponse(),
  });
  const host = server.hostname.includes(':') ? `[${server.hostname}]` : server.hostname;
  return { server, url: `http://${host}:${server.port}`, close: () => server.stop(true) };
}
