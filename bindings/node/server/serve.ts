/**
 * `serve()` of the node:http binding: a server for the marketplace with the limits of
 * docs/security.md (headers, keep-alive and idle timeouts, connections per address).
 */
import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { parserRefusalStatus, statusOf } from '../../../core/errors.js';
import type { Marketplace } from '../../../core/marketplace.js';
import { AddressCounter, resolveLimits, tooManyConnectionsBody, tooManyConnectionsStatus, type ConnectionLimits, type ResolvedLimits } from '../../limits.js';
import { listenOn } from './listen.js';
import { nodeListener, type ListenerOptions } from './listener.js';

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

const tooManyConnectionsResponse = rawResponse(tooManyConnectionsStatus, 'Too Many Requests', tooManyConnectionsBody, 'retry-after: 1\r\n');
const requestTimeoutResponse = rawResponse(
  statusOf('REQUEST_TIMEOUT'),
  'Request Timeout',
  JSON.stringify({ error: 'The request headers did not arrive in time; send the request again.', code: 'REQUEST_TIMEOUT' }),
);

function rawResponse(status: number, reason: string, json: string, extraHeaders = ''): Buffer {
  return Buffer.from(
    `HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\n${extraHeaders}content-length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
  );
}

/** Node's own bodiless refusal, the same bytes (lib/_http_server.js). */
const bareResponse = (status: number, reason: string) => `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\n\r\n`;
const headersTooLargeResponse = bareResponse(parserRefusalStatus.headersTooLarge, 'Request Header Fields Too Large');
const chunkExtensionsTooLargeResponse = bareResponse(parserRefusalStatus.chunkExtensionsTooLarge, 'Payload Too Large');
const malformedResponse = bareResponse(parserRefusalStatus.malformed, 'Bad Request');

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
          ? headersTooLargeResponse
          : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
            ? chunkExtensionsTooLargeResponse
            : malformedResponse,
    );
  }
  socket.destroy(error);
}
