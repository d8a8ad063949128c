import type { Marketplace } from '../../core/marketplace.js';
import { coreRequestFromFetch, fetchResponseFromCore } from '../../core/http/fetch.js';
import { defaultMaxHeaderBytes, isLoopbackAddress, refusalLikeNode } from '../fetch/index.js';
import { denoGlobal, type DenoHttpServer, type DenoServeHandlerInfo } from './deno-runtime.js';

export type { DenoGlobal, DenoHttpServer, DenoServeHandlerInfo, DenoServeOptions } from './deno-runtime.js';

export interface DenoHandlerOptions {
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
 */
export function denoHandler(marketplace: Marketplace, options: DenoHandlerOptions = {}): DenoHandler {
  const basePath = options.basePath ?? '';
  const maxHeaderBytes = options.maxHeaderBytes ?? defaultMaxHeaderBytes;
  return async (request, info) => {
    const refused = refusalLikeNode(request, maxHeaderBytes);
    if (refused) return refused;
    const core = coreRequestFromFetch(request, basePath);
    // A peer on loopback reached us on loopback: the MCP endpoint's Host check applies.
    core.loopback = isLoopbackAddress(info.remoteAddr.hostname);
    return fetchResponseFromCore(await marketplace.handle(core));
  };
}

export interface ServeOptions extends DenoHandlerOptions {
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

/** Starts `Deno.serve` for the marketplace. Resolves once it listens. */
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
      // Only a bug gets here (the core answers every error itself).
      onError: () => new Response('{"error":"Internal error; retry.","code":"INTERNAL_ERROR"}', { status: 500, headers: { 'content-type': 'application/json; charset=utf-8' } }),
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
