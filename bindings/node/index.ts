import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CoreRequest } from '../../core/http/request.js';
import type { Marketplace } from '../../core/marketplace.js';
import { writeCoreResponse } from './from-core.js';
import { toCoreRequest } from './to-core.js';

export { nodeApiReference } from './reference-assets.js';
export { fileSource } from './file-source.js';
export { nodeFetch } from './streaming-fetch.js';

export type NodeListener = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

export interface ListenerOptions {
  /**
   * The prefix the listener is mounted under in a larger app (`/market` for
   * `app.use('/market', listener)`), so that the URLs it builds include it. Express and Connect
   * pass `req.baseUrl`/`req.originalUrl`; this is read from them when not given.
   */
  basePath?: string;
}

/**
 * A request listener for `http.createServer`, and Connect/Express middleware: given `next`, it
 * passes on every request that is not the marketplace's.
 */
export function nodeListener(marketplace: Marketplace, options: ListenerOptions = {}): NodeListener {
  return (req, res, next) => {
    if (next && !marketplace.owns((req.url ?? '/').split('?', 1)[0]!)) {
      next();
      return;
    }
    // Node keeps the first of two Host lines, Bun joins them and Deno refuses: refused here too, as
    // the other bindings do, so that the MCP Host check never reads half of an ambiguous request.
    if (hostLines(req.rawHeaders) > 1) {
      res.writeHead(400, { connection: 'close' }).end();
      return;
    }
    const mounted = options.basePath ?? (req as IncomingMessage & { baseUrl?: string }).baseUrl ?? '';
    void answer(marketplace, req, res, toCoreRequest(req, mounted));
  };
}

/** One request's answer: the core's response written to node's, or a 500 that closes the connection. */
async function answer(marketplace: Marketplace, req: IncomingMessage, res: ServerResponse, request: CoreRequest): Promise<void> {
  try {
    // Node calls the listener as soon as the headers are parsed, before it pushes a body that came
    // in the same packet; one microtask later that body is buffered and read without a wait.
    if (request.body) await null;
    await writeCoreResponse(req, res, await marketplace.handle(request), request);
  } catch (error) {
    // Only a broken connection gets here (the core answers every error itself).
    if (!res.headersSent) {
      res.writeHead(500, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      res.end('{"error":"Internal error; retry.","code":"INTERNAL_ERROR"}');
    } else {
      res.destroy(error instanceof Error ? error : undefined);
    }
  }
}

/** How many Host lines a request has (req.rawHeaders alternates names and values). */
function hostLines(raw: string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') count++;
  return count;
}

export interface ServeOptions extends ListenerOptions {
  port?: number;
  host?: string;
  /** Seconds a client may take to send the request headers. */
  headersTimeoutSeconds?: number;
  /** Seconds a connection may stay silent (no bytes either way) before it is closed. */
  idleTimeoutSeconds?: number;
}

export interface RunningServer {
  server: Server;
  /** The site URL it listens on: `http://127.0.0.1:8787`. */
  url: string;
  close(): Promise<void>;
}

/** Starts a node:http server for the marketplace. Resolves once it listens. */
export async function serve(marketplace: Marketplace, options: ServeOptions = {}): Promise<RunningServer> {
  const server = createServer(nodeListener(marketplace, options));
  // Node's defaults (60 s for headers, 300 s per request) let a slow client hold a socket far too long;
  // uploads may take long, so the whole-request limit is off and an idle socket is closed instead.
  server.headersTimeout = (options.headersTimeoutSeconds ?? 15) * 1000;
  server.requestTimeout = 0;
  server.setTimeout((options.idleTimeoutSeconds ?? 60) * 1000, (socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
