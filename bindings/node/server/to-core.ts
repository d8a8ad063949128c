import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { CoreRequest } from '../../../core/pipeline/request.js';
import { ApiError } from '../../../core/errors.js';
import { drainRest, isUploadMethod, type BodyWatchdog, type WatchedBody } from '../../limits.js';

const bodiless = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/**
 * A node:http request as a core request, with no WHATWG Request in between: headers are read
 * from node's own object, and the body is the request stream itself. With a watchdog, a body the
 * client sends too slowly fails its reader with REQUEST_TIMEOUT (bindings/limits.ts).
 */
export function toCoreRequest(req: IncomingMessage, basePath = '', watchdog: BodyWatchdog | null = null): CoreRequest {
  return new NodeCoreRequest(req, basePath, watchdog);
}

/** One class, so that every request has the same shape and `header` is not a closure made per request. */
class NodeCoreRequest implements CoreRequest {
  readonly method: string;
  readonly target: string;
  readonly body: NodeBody | null;
  readonly origin: string | undefined;
  readonly loopback: boolean;
  readonly clientAddress: string | undefined;

  constructor(
    private readonly req: IncomingMessage,
    // Express and Connect strip the mount prefix from req.url; basePath puts it back in URLs we build.
    readonly basePath: string,
    watchdog: BodyWatchdog | null,
  ) {
    const { headers } = req;
    this.method = req.method ?? 'GET';
    this.target = req.url ?? '/';
    const hasBody = !bodiless.has(this.method) || headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined;
    this.body = hasBody ? new NodeBody(req, isUploadMethod(this.method, headers['content-type']), watchdog) : null;
    const encrypted = (req.socket as TLSSocket).encrypted === true;
    this.origin = headers.host ? `${encrypted ? 'https' : 'http'}://${headers.host}` : undefined;
    this.loopback = isLoopback(req.socket.localAddress);
    // Node keeps the peer's address once asked for it, so this is a look-up after a connection's first request.
    this.clientAddress = req.socket.remoteAddress;
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

/** Whether the server side of the connection is a loopback address: 127.0.0.0/8, ::1, or 127.x mapped into IPv6. */
function isLoopback(address: string | undefined): boolean {
  return address !== undefined && (address === '::1' || /^(::ffff:)?127\./.test(address));
}

/**
 * The request stream, with a client that hangs up mid-body reported as the client's doing (a 400
 * nobody will read) rather than as an internal error. A plain iterator over read() with one
 * 'readable' wait at a time: node's own async iterator (and an async generator) cost several
 * microseconds more per request, a share that shows on small JSON calls. With a Content-Length,
 * the body is over once that many bytes were read (node's parser delivers exactly that many), so
 * a body that has arrived is read without waiting for 'end'. Backpressure is the stream's:
 * nothing is read before it is asked for.
 *
 * The first time the reader waits for the client, the body registers with the watchdog (if any),
 * which fails the reader with REQUEST_TIMEOUT when the client breaks a limit; the time spent
 * waiting and the bytes read are kept here for it (WatchedBody), so a body that arrived with its
 * headers costs nothing more.
 */
class NodeBody implements AsyncIterable<Uint8Array>, AsyncIterator<Uint8Array>, WatchedBody {
  /** Bytes still to come by the Content-Length, or Infinity without one (chunked). */
  #remaining: number;
  #readWhole = false;
  /** The reader stopped early (return()): reads are over until drain() takes up the rest. */
  #stopped = false;
  /** The watchdog's verdict once the client broke a limit: every later read fails with it. */
  #failure: ApiError | null = null;
  #watched = false;
  /** Ends the pending wait for the client, if one is pending. */
  #settle: ((error?: unknown) => void) | null = null;
  watchStart = 0;
  waitingSince = -1;
  windowWaitMs = 0;
  windowBytes = 0;

  constructor(
    private readonly req: IncomingMessage,
    readonly upload: boolean,
    private readonly watchdog: BodyWatchdog | null,
  ) {
    const declared = req.headers['content-length'];
    this.#remaining = declared === undefined ? Infinity : Number(declared);
    // A declared empty body is whole before anything is read.
    this.#readWhole = this.#remaining <= 0;
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this;
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    const { req } = this;
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (this.#remaining <= 0 || this.#stopped) return done;
    const chunk = req.read() as Buffer | null;
    if (chunk !== null) {
      this.#remaining -= chunk.byteLength;
      this.windowBytes += chunk.byteLength;
      if (this.#remaining <= 0) this.#finished(true);
      return Promise.resolve({ value: chunk, done: false });
    }
    if (req.readableEnded) {
      this.#finished(false);
      return done;
    }
    // Destroyed before its end (the client hung up): no event will come.
    if (req.destroyed) {
      this.#finished(false);
      return Promise.reject(endedEarly());
    }
    if (this.watchdog !== null) {
      const now = Date.now();
      if (!this.#watched) {
        this.#watched = true;
        this.watchdog.watch(this, now);
      }
      this.waitingSince = now;
    }
    return new Promise<void>((resolve, reject) => {
      const settle = (error?: unknown) => {
        req.off('readable', onReadable).off('end', onReadable).off('error', settle).off('close', onClose);
        this.#settle = null;
        if (this.waitingSince >= 0) {
          this.windowWaitMs += Date.now() - this.waitingSince;
          this.waitingSince = -1;
        }
        if (error === undefined) resolve();
        else reject(error instanceof ApiError ? error : endedEarly());
      };
      const onReadable = () => settle();
      const onClose = () => settle(req.complete ? undefined : 'aborted');
      req.on('readable', onReadable).on('end', onReadable).on('error', settle).on('close', onClose);
      this.#settle = settle;
    }).then(() => this.next());
  }

  /** The reading is over: whole (every declared byte read) or not; the watchdog lets go of it. */
  #finished(whole: boolean): void {
    if (whole) this.#readWhole = true;
    if (this.#watched) {
      this.#watched = false;
      this.watchdog!.forget(this);
    }
  }

  /**
   * The client broke a time limit (called by the watchdog): the pending read and every later one
   * fail with REQUEST_TIMEOUT, which the core answers with 408, and the connection is closed after
   * that answer (settleUnread). Should no answer come, the socket is destroyed shortly after.
   */
  expire(error: ApiError): void {
    this.#failure = error;
    this.#watched = false;
    this.#settle?.(error);
    const { socket } = this.req;
    setTimeout(() => socket.destroy(), expiredGraceMs).unref();
  }

  /** Whether the watchdog failed this body. */
  get expired(): boolean {
    return this.#failure !== null;
  }

  /** Whether every declared byte was read, which node may not have marked complete yet. */
  get readWhole(): boolean {
    return this.#readWhole;
  }

  /** A reader that stops early (a refused body) leaves the rest unread, for settleUnread to drain. */
  return(): Promise<IteratorResult<Uint8Array>> {
    this.#stopped = true;
    this.#finished(false);
    return done;
  }

  /** Reads and discards the rest within refusedBodyDrain (bindings/limits.ts): true when the body ended. */
  async drain(): Promise<boolean> {
    this.#stopped = false;
    const ended = await drainRest(this);
    this.#stopped = true;
    return ended && (this.#readWhole || this.req.readableEnded);
  }
}

/**
 * After the answer to a request is made: drains what its body has left unread, if anything, within
 * refusedBodyDrain, so that a client still sending reads the answer instead of a reset. True when
 * nothing is left (the connection can carry the next request); false when the body broke a limit
 * or was more than the drain takes: the answer must close the connection.
 */
export function settleUnread(req: IncomingMessage, body: CoreRequest['body']): boolean | Promise<boolean> {
  if (!bodyLeftUnread(req, body)) return true;
  if (!(body instanceof NodeBody) || body.expired) return false;
  return body.drain();
}

/**
 * Whether the client is still owed a read of the request body: it was neither read to its end nor
 * received whole. (Node marks a body complete once its parser has every byte, buffered or not, and
 * discards the buffered rest after the answer; Deno's node:http marks it complete only once read.)
 */
function bodyLeftUnread(req: IncomingMessage, body: CoreRequest['body']): boolean {
  if (body instanceof NodeBody && body.expired) return true;
  return !req.complete && !req.readableEnded && !(body instanceof NodeBody && body.readWhole);
}

/** How long a body that broke a limit waits for its answer to be written before its socket is destroyed. */
const expiredGraceMs = 2000;

const done: Promise<IteratorResult<Uint8Array>> = Promise.resolve({ value: undefined, done: true });

function endedEarly(): ApiError {
  return new ApiError('INVALID_INPUT', 'The request body ended before it was complete.');
}
