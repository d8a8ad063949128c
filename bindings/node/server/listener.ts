/**
 * The node:http binding's listener: a request listener for `http.createServer`, and
 * Connect/Express middleware; each request's answer written in the turn it was read in.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parserRefusalStatus } from '../../../core/errors.js';
import type { CoreRequest } from '../../../core/pipeline/request.js';
import type { Marketplace } from '../../../core/marketplace.js';
import { BodyWatchdog, resolveLimits, type ConnectionLimits } from '../../limits.js';
import { currentTurn, endOfTurn, type Turn } from './end-of-turn.js';
import { writeCoreResponse, writeInternalError } from './from-core.js';
import { toCoreRequest } from './to-core.js';

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
      res.writeHead(parserRefusalStatus.malformed, { connection: 'close' }).end();
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

/** How many Host lines a request has (req.rawHeaders alternates names and values). */
function hostLines(raw: string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') count++;
  return count;
}

