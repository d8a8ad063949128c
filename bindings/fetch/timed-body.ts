/**
 * A WHATWG request body as the core reads it, under the body limits of bindings/limits.ts: the
 * Bun, Deno and fetch bindings hand the core this instead of the bare stream. Every read is timed
 * (a stream read is a promise whether or not the bytes are there), and the body registers with
 * the watchdog at its first read. When the client breaks a limit, the pending read and every later
 * one fail with REQUEST_TIMEOUT (the core answers 408) and the stream is cancelled, so an upload's
 * blob port sees its body fail and keeps nothing.
 */
import { ApiError } from '../../core/errors.js';
import type { CoreResponse } from '../../core/pipeline/request.js';
import { drainRest, isUploadMethod, type BodyWatchdog, type WatchedBody } from '../limits.js';

export class TimedBody implements AsyncIterable<Uint8Array>, AsyncIterator<Uint8Array>, WatchedBody {
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #failure: ApiError | null = null;
  #watched = false;
  #readWhole = false;
  #stopped = false;
  /** Fails the pending read, if one is pending. */
  #reject: ((error: unknown) => void) | null = null;
  watchStart = 0;
  waitingSince = -1;
  windowWaitMs = 0;
  windowBytes = 0;

  constructor(
    private readonly stream: ReadableStream<Uint8Array>,
    readonly upload: boolean,
    private readonly watchdog: BodyWatchdog,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this;
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (this.#readWhole || this.#stopped) return done;
    const reader = (this.#reader ??= this.stream.getReader());
    const now = Date.now();
    if (!this.#watched) {
      this.#watched = true;
      this.watchdog.watch(this, now);
    }
    this.waitingSince = now;
    return new Promise<IteratorResult<Uint8Array>>((resolve, reject) => {
      this.#reject = reject;
      reader.read().then(
        (result) => {
          if (!this.#waited()) return;
          if (result.done) {
            this.#finished(true);
            resolve(done$);
          } else {
            this.windowBytes += result.value.byteLength;
            resolve(result);
          }
        },
        () => {
          if (!this.#waited()) return;
          this.#finished(false);
          // The client hung up mid-body: its doing, a 400 nobody will read, not an internal error.
          reject(new ApiError('INVALID_INPUT', 'The request body ended before it was complete.'));
        },
      );
    });
  }

  /** The pending read settled: its wait is counted. False when the watchdog already failed it. */
  #waited(): boolean {
    this.#reject = null;
    if (this.waitingSince >= 0) {
      this.windowWaitMs += Date.now() - this.waitingSince;
      this.waitingSince = -1;
    }
    return this.#failure === null;
  }

  /** Called once, when the last byte has been read (a binding stops its idle timer there: Bun). */
  onWhole: (() => void) | null = null;

  #finished(whole: boolean): void {
    if (whole && !this.#readWhole) this.onWhole?.();
    if (whole) this.#readWhole = true;
    if (this.#watched) {
      this.#watched = false;
      this.watchdog.forget(this);
    }
  }

  /**
   * A reader that stops early (a refused body) leaves the rest unread, for the binding to drain
   * (settleUnread) or cancel.
   */
  return(): Promise<IteratorResult<Uint8Array>> {
    this.#stopped = true;
    this.#finished(false);
    return done;
  }

  /**
   * Reads and discards the rest within refusedBodyDrain (bindings/limits.ts): true when the body
   * ended, false (and the stream cancelled) when it did not. Once only, after the answer is made.
   */
  async drain(): Promise<boolean> {
    if (this.#readWhole) return true;
    if (this.#failure === null) {
      this.#stopped = false;
      if (await drainRest(this)) return true;
    }
    this.#stopped = true;
    this.#cancel(undefined);
    return false;
  }

  /** Called by the watchdog: the client broke a limit. */
  expire(error: ApiError): void {
    this.#failure = error;
    this.#watched = false;
    const reject = this.#reject;
    this.#reject = null;
    reject?.(error);
    this.#cancel(error);
  }

  #cancel(reason: unknown): void {
    const stream = this.#reader ?? this.stream;
    // The runtime may refuse a cancel of a stream it is closing: nothing is left to stop then.
    stream.cancel(reason).catch(() => {});
  }

  /** Whether the body was read to its end; if not, the connection must not wait for the rest. */
  get readWhole(): boolean {
    return this.#readWhole;
  }

  get expired(): boolean {
    return this.#failure !== null;
  }
}

const done$: IteratorResult<Uint8Array> = { value: undefined, done: true };
const done: Promise<IteratorResult<Uint8Array>> = Promise.resolve(done$);

/** The body the core reads for `request`: timed when there is one, null otherwise. */
export function timedBodyOf(request: Request, watchdog: BodyWatchdog): TimedBody | null {
  const stream = request.body;
  return stream === null ? null : new TimedBody(stream, isUploadMethod(request.method, request.headers.get('content-type')), watchdog);
}

/**
 * After the answer to a request is made: drains what its body has left unread, if anything, within
 * refusedBodyDrain. True when nothing is left (the connection can carry the next request); false
 * when the body broke a limit or was more than the drain takes: the answer must close the connection.
 */
export function settleUnread(body: TimedBody | null): boolean | Promise<boolean> {
  return body === null || body.readWhole || body.drain();
}

/**
 * The error a response body fails with on purpose, after its last byte, so that the runtime closes
 * the connection instead of waiting for the rest of a request body nobody will read (Deno keeps
 * such a connection open, draining the body, for as long as the client keeps sending).
 */
export class ClosingConnection extends Error {
  constructor() {
    super('marketkit: closing the connection after an answer that left the request body unread (a refused or timed-out request); not a fault');
    this.name = 'ClosingConnection';
  }
}

/** Whether an error a runtime's server reports is the deliberate close of `closingResponse` (for an `onError`). */
export function isClosingConnection(error: unknown): boolean {
  return error instanceof ClosingConnection;
}

const encoder = new TextEncoder();

/**
 * A core response as a WHATWG Response whose body, once written whole, fails with
 * ClosingConnection: the runtime then closes the connection. Only for a response that can have a
 * body; null for one that cannot (the caller sends it as usual).
 */
export function closingResponse(response: CoreResponse): Response | null {
  const { status, body } = response;
  if (status === 204 || status === 304 || status < 200) return null;
  const headers: Record<string, string> = { ...response.headers, connection: 'close' };
  let source: AsyncIterator<Uint8Array> | null = null;
  let bytes: Uint8Array | null = null;
  if (body === null) bytes = new Uint8Array(0);
  else if (typeof body === 'string') bytes = encoder.encode(body);
  else if (body instanceof Uint8Array) bytes = body;
  else source = body[Symbol.asyncIterator]();
  if (bytes !== null) headers['content-length'] = String(bytes.byteLength);
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (bytes !== null) {
        if (bytes.byteLength > 0) controller.enqueue(bytes);
        bytes = null;
        return;
      }
      const next = source ? await source.next() : { done: true as const, value: undefined };
      if (next.done) controller.error(new ClosingConnection());
      else controller.enqueue(next.value);
    },
    async cancel() {
      await source?.return?.();
    },
  });
  return new Response(stream, { status, headers });
}
