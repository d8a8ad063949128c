import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { CoreRequest } from '../../core/http/request.js';
import { ApiError } from '../../core/errors.js';

const bodiless = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/**
 * A node:http request as a core request, with no WHATWG Request in between: headers are read
 * from node's own object, and the body is the request stream itself.
 */
export function toCoreRequest(req: IncomingMessage, basePath = ''): CoreRequest {
  return new NodeCoreRequest(req, basePath);
}

/** One class, so that every request has the same shape and `header` is not a closure made per request. */
class NodeCoreRequest implements CoreRequest {
  readonly method: string;
  readonly target: string;
  readonly body: NodeBody | null;
  readonly origin: string | undefined;
  readonly loopback: boolean;

  constructor(
    private readonly req: IncomingMessage,
    // Express and Connect strip the mount prefix from req.url; basePath puts it back in URLs we build.
    readonly basePath: string,
  ) {
    const { headers } = req;
    this.method = req.method ?? 'GET';
    this.target = req.url ?? '/';
    const hasBody = !bodiless.has(this.method) || headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined;
    this.body = hasBody ? new NodeBody(req) : null;
    const encrypted = (req.socket as TLSSocket).encrypted === true;
    this.origin = headers.host ? `${encrypted ? 'https' : 'http'}://${headers.host}` : undefined;
    this.loopback = isLoopback(req.socket.localAddress);
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
 */
class NodeBody implements AsyncIterable<Uint8Array>, AsyncIterator<Uint8Array> {
  /** Bytes still to come by the Content-Length, or Infinity without one (chunked). */
  #remaining: number;
  #readWhole = false;

  constructor(private readonly req: IncomingMessage) {
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
    if (this.#remaining <= 0) return done;
    const chunk = req.read() as Buffer | null;
    if (chunk !== null) {
      this.#remaining -= chunk.byteLength;
      if (this.#remaining <= 0) this.#readWhole = true;
      return Promise.resolve({ value: chunk, done: false });
    }
    if (req.readableEnded) return done;
    // Destroyed before its end (the client hung up): no event will come.
    if (req.destroyed) return Promise.reject(endedEarly());
    return new Promise<void>((resolve, reject) => {
      const settle = (error?: unknown) => {
        req.off('readable', onReadable).off('end', onReadable).off('error', settle).off('close', onClose);
        if (error === undefined) resolve();
        else reject(endedEarly());
      };
      const onReadable = () => settle();
      const onClose = () => settle(req.complete ? undefined : 'aborted');
      req.on('readable', onReadable).on('end', onReadable).on('error', settle).on('close', onClose);
    }).then(() => this.next());
  }

  /** Whether every declared byte was read, which node may not have marked complete yet. */
  get readWhole(): boolean {
    return this.#readWhole;
  }

  /** A reader that stops early (a refused body) leaves the rest unread: the response closes the connection. */
  return(): Promise<IteratorResult<Uint8Array>> {
    this.#remaining = 0;
    return done;
  }
}

/**
 * Whether the client is still owed a read of the request body: it was neither read to its end
 * nor received whole. Answering such a request closes the connection instead of draining it.
 */
export function bodyLeftUnread(req: IncomingMessage, body: CoreRequest['body']): boolean {
  return !req.complete && req.readableLength === 0 && !req.readableEnded && !(body instanceof NodeBody && body.readWhole);
}

const done: Promise<IteratorResult<Uint8Array>> = Promise.resolve({ value: undefined, done: true });

function endedEarly(): ApiError {
  return new ApiError('INVALID_INPUT', 'The request body ended before it was complete.');
}
