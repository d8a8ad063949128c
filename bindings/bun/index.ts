import type { Marketplace } from '../../core/marketplace.js';
import { coreRequestFromFetch, fetchResponseFromCore } from '../../core/http/fetch.js';
import { isLoopbackAddress, refusalLikeNode } from '../fetch/index.js';
import { bunGlobal, type BunServer } from './bun-runtime.js';

export type { BunGlobal, BunServeOptions, BunServer } from './bun-runtime.js';

export interface BunHandlerOptions {
  /** The prefix the handler is mounted under in a larger app (`/market`), so that the URLs it builds include it. */
  basePath?: string;
}

export type BunFetch = (request: Request, server: BunServer) => Promise<Response>;

/**
 * The handler for `Bun.serve({ fetch })`, or to call from your own `fetch` for the requests that
 * `marketplace.owns(path)`. A repeated Host or Content-Length, which Bun joins into `a, b`, gets
 * Node's 400 (Bun itself refuses oversized headers and a missing Host, as Node does).
 */
export function bunHandler(marketplace: Marketplace, options: BunHandlerOptions = {}): BunFetch {
  const basePath = options.basePath ?? '';
  return async (request, server) => {
    const refused = refusalLikeNode(request);
    if (refused) return refused;
    const core = coreRequestFromFetch(request, basePath);
    // A peer on loopback reached us on loopback: the MCP endpoint's Host check applies.
    core.loopback = isLoopbackAddress(server.requestIP(request)?.address);
    return fetchResponseFromCore(await marketplace.handle(core));
  };
}

export interface ServeOptions extends BunHandlerOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Seconds a connection may stay silent before it is closed (Bun allows at most 255; default 60). */
  idleTimeoutSeconds?: number;
}

export interface RunningServer {
  server: BunServer;
  /** The site URL it listens on: `http://127.0.0.1:8787`. */
  url: string;
  close(): Promise<void>;
}

/** Starts `Bun.serve` for the marketplace. */
export async function serve(marketplace: Marketplace, options: ServeOptions = {}): Promise<RunningServer> {
  const server = bunGlobal().serve({
    port: options.port ?? 0,
    hostname: options.host ?? '127.0.0.1',
    idleTimeout: Math.min(options.idleTimeoutSeconds ?? 60, 255),
    // Bun shares a port with another process listening on it unless told not to: a port in use
    // must be an error (EADDRINUSE), as on Node and Deno, not two servers answering in turn.
    reusePort: false,
    // The core enforces the upload limits as the body streams in, with a 413 of its own; Bun's
    // default (128 MB, below the default file limit) would cut in first.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    development: false,
    fetch: bunHandler(marketplace, options),
    // Only a bug gets here (the core answers every error itself).
    error: () => new Response('{"error":"Internal error; retry.","code":"INTERNAL_ERROR"}', { status: 500, headers: { 'content-type': 'application/json; charset=utf-8' } }),
  });
  const host = server.hostname.includes(':') ? `[${server.hostname}]` : server.hostname;
  return { server, url: `http://${host}:${server.port}`, close: () => server.stop(true) };
}
