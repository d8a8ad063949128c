import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { CoreRequest } from '../../core/pipeline/request.js';
import type { Marketplace } from '../../core/marketplace.js';
import { AddressCounter, BodyWatchdog, resolveLimits, tooManyConnectionsBody, type ConnectionLimits, type ResolvedLimits } from '../limits.js';
import { currentTurn, endOfTurn, type Turn } from './end-of-turn.js';
import { writeCoreResponse, writeInternalError } from './from-core.js';
import { listenOn } from './listen.js';
import { toCoreRequest } from './to-core.js';

export type { ConnectionLimits } from '../limits.js';
export { defaultLimits } from '../limits.js';

export { nodeApiReference } from './reference-assets.js';
export { fileSource, type FileSource } from './file-source.js';
export { defaultResumeFile, fileResumeStore } from './resume-store.js';
export { nodeFetch } from './streaming-fetch.js';
export { nodeWebhookSender, type NodeWebhookSenderOptions } from './webhook-sender.js';
export { nodeHashing } from './hashing.js';
export { openTelemetryTracing, type OpenTelemetryTracingOptions } from './opentelemetry.js';

export type NodeListener = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

export interface ListenerOptions extends Pick<ConnectionLimits, 'bodyTimeoutSeconds' | 'uploadMinBytesPerSecond' | 'uploadRateWindowSeconds'> {
  /**
   * The prefix the listener is mounted under in a larger app (`/market` for
   * `app.use('/market', listener)`), so that the URLs it builds include it. Express and Connect
   * pass `req.baseUrl`/`req.originalUrl`; this is read from them when not given.
   */
  basePath?: string;
}

/**
 * A request listener for `http.createServer`, and Connect/Express middleware: given `next`, it
 * passes on every request that is not the marketplace's. It enforces the body limits (a JSON body
 * whole within `bodyTimeoutSeconds`, an upload at `uploadMinBytesPerSecond` at least); the limits
 * on headers, idle connections and connections per address are the server's: `serve()` sets them,
 * or see docs/security.md for a server of your own.
 */
export function nodeListener(marketplace: Marketplace, options: ListenerOptions = {}): NodeListener {
  const watchdog = new BodyWatchdog(resolveLimits(options, 'marketkit/bindings/node'));
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
    void answer(marketplace, req, res, toCoreRequest(req, mounted, watchdog), currentTurn());
  };
}

/** One request's answer: the core's response written to node's, or a 500 that closes the connection. */
async function answer(marketplace: Marketplace, req: IncomingMessage, res: ServerResponse, request: CoreRequest, turn: Turn): Promise<void> {
  // The socket's idle timer (serve()'s idleTimeoutSeconds) is off while the core works on the answer:
  // what the client does meanwhile (its body) is timed by the body limits, and the server's own waits
  // (a multipart completion or a copy of gigabytes in the store, minutes on S3) are not a client's
  // silence. It runs again while the answer is written, for a client that stops reading.
  const { socket } = req;
  const idleMs = socket.timeout ?? 0;
  if (idleMs > 0) socket.setTimeout(0);
  try {
    // Node calls the listener as soon as the headers are parsed, before it pushes a body that came
    // in the same packet; one microtask later that body is buffered and read without a wait.
    if (request.body) await null;
    const response = await marketplace.handle(request);
    // Made in the turn its request was read in: written with that turn's other answers, at its end.
    const turnEnds = endOfTurn(turn);
    if (turnEnds !== null) await turnEnds;
    if (idleMs > 0 && !socket.destroyed) socket.setTimeout(idleMs);
    await writeCoreResponse(req, res, response, request);
  } catch (error) {
    // Only a broken connection gets here (the core answers every error itself).
    if (idleMs > 0 && !socket.destroyed) socket.setTimeout(idleMs);
    if (!res.headersSent) {
      writeInternalError(res);
    } else {
      res.destroy(error instanceof Error ? error : undefined);
    }
  }
}

/**
 * The server's part of the limits: node's own headers and keep-alive timeouts (its whole-request
 * timeout stays off: it would cut a slow upload that keeps its rate; the listener's watchdog
 * times bodies instead), a JSON 408 for headers that did not arrive in time, and the cap on
 * connections per client address, refused at once with a 429 and closed.
 */
function limitServer(server: Server, limits: ResolvedLimits, idleSeconds: number): void {
  server.headersTimeout = limits.headersTimeoutSeconds * 1000;
  server.requestTimeout = 0;
  server.keepAliveTimeout = limits.keepAliveTimeoutSeconds * 1000;
  server.setTimeout(idleSeconds * 1000, (socket) => socket.destroy());
  server.on('clientError', answerClientError);
  const counter = new AddressCounter(limits);
  if (!counter.active) return;
  server.on('connection', (socket: Socket) => {
    const address = counter.take(socket.remoteAddress);
    if (address === null) return;
    if (address === false) {
      // Refused before node reads a byte of it: the answer, then the socket closed once it is written.
      socket.end(tooManyConnectionsResponse, () => socket.destroy());
      return;
    }
    socket.once('close', () => counter.release(address));
  });
}

const tooManyConnectionsResponse = rawResponse(429, 'Too Many Requests', tooManyConnectionsBody, 'retry-after: 1\r\n');
const requestTimeoutResponse = rawResponse(
  408,
  'Request Timeout',
  JSON.stringify({ error: 'The request headers did not arrive in time; send the request again.', code: 'REQUEST_TIMEOUT' }),
);

function rawResponse(status: number, reason: string, json: string, extraHeaders = ''): Buffer {
  return Buffer.from(
    `HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\n${extraHeaders}content-length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
  );
}

/**
 * Node's own answer to a request it could not parse or that timed out (lib/_http_server.js,
 * socketOnError), the same bytes but for the headers timeout, which gets the JSON error body.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && (!inFlight || !inFlight.headersSent)) {
    socket.write(
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? requestTimeoutResponse
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n'
          : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
            ? 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n'
            : 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n',
    );
  }
  socket.destroy(error);
}

/** How many Host lines a request has (req.rawHeaders alternates names and values). */
function hostLines(raw: string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') count++;
  return count;
}

export interface ServeOptions extends ListenerOptions, ConnectionLimits {
  port?: number;
  host?: string;
  /**
   * Seconds a connection may stay silent (no bytes either way), in any phase, before it is closed
   * (default 60): the last resort against a client that stops reading its answer.
   */
  idleTimeoutSeconds?: number;
}

export interface RunningServer {
  server: Server;
  /** The site URL it listens on: `http://127.0.0.1:8787`. */
  url: string;
  close(): Promise<void>;
}

/** Starts a node:http server for the marketplace, with the limits of docs/security.md. Resolves once it listens. */
export async function serve(marketplace: Marketplace, options: ServeOptions = {}): Promise<RunningServer> {
  const limits = resolveLimits(options, 'marketkit/bindings/node serve');
  const headersMs = limits.headersTimeoutSeconds * 1000;
  // Node checks the headers timeout on an interval (30 s by default): a few times per timeout instead.
  const listener = nodeListener(marketplace, limits);
  const server = createServer({ connectionsCheckingInterval: Math.max(100, Math.min(1000, headersMs / 4)) }, listener);
  limitServer(server, limits, options.idleTimeoutSeconds ?? 60);
  // Node hands a CONNECT to 'connect' and, unheard, drops the socket unanswered: it goes through the
  // core like any request (refused there, 405, counted and logged), and the connection closes.
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket);
    response.once('finish', () => socket.end());
    listener(request, response);
  });
  const { url, close } = await listenOn(server, options.port, options.host);
  return { server, url, close };
}
