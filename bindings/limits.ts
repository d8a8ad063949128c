/**
 * The time and connection limits every binding enforces against slow clients (docs/security.md,
 * "Time limits and connections"): one set of options, their defaults, and the parts that do not
 * depend on a runtime: the body watchdog and the per-address connection count.
 *
 * The watchdog is one interval per server, not a timer per request: a body registers with it only
 * when its reader has to wait for the client, and the interval (which runs only while some body is
 * registered) checks each one's deadline or rate. A body that came whole with its headers, as
 * nearly every JSON body does, never registers.
 */
import { ApiError, ConfigurationError, statusOf } from '../core/errors.js';

export interface ConnectionLimits {
  /** Seconds a client may take to send the request line and headers (default 10). */
  headersTimeoutSeconds?: number;
  /** Seconds a JSON body may take to arrive whole, every request but uploads (default 30). */
  bodyTimeoutSeconds?: number;
  /**
   * The least rate, in bytes per second, at which an upload to a signed URL (PUT under
   * /api/v1/blobs/) must come in, measured over `uploadRateWindowSeconds` of waiting for the client
   * (default 1024; 0 turns the check off).
   */
  uploadMinBytesPerSecond?: number;
  /** The window over which the upload rate is measured (default 10 s). */
  uploadRateWindowSeconds?: number;
  /** Seconds an idle keep-alive connection stays open between requests (default 5). */
  keepAliveTimeoutSeconds?: number;
  /**
   * Connections one client address may hold at once (default 64; 0: no cap). Past it a new one is
   * refused at once with 429. Behind a proxy every client has the proxy's address: raise it or set 0.
   */
  maxConnectionsPerAddress?: number;
  /**
   * Whether loopback clients (127.0.0.0/8, ::1) count against `maxConnectionsPerAddress` (default
   * false: a proxy on the same host carries every client from 127.0.0.1, and capping it would let
   * one client's connections shut out everyone).
   */
  limitLoopback?: boolean;
}

export type ResolvedLimits = Required<ConnectionLimits>;

export const defaultLimits: ResolvedLimits = Object.freeze({
  headersTimeoutSeconds: 10,
  bodyTimeoutSeconds: 30,
  uploadMinBytesPerSecond: 1024,
  uploadRateWindowSeconds: 10,
  keepAliveTimeoutSeconds: 5,
  maxConnectionsPerAddress: 64,
  limitLoopback: false,
});

const positive = ['headersTimeoutSeconds', 'bodyTimeoutSeconds', 'uploadRateWindowSeconds', 'keepAliveTimeoutSeconds'] as const;
const zeroOrMore = ['uploadMinBytesPerSecond', 'maxConnectionsPerAddress'] as const;

/** The limits with their defaults filled in; a ConfigurationError naming the option when one is not a valid figure. */
export function resolveLimits(options: ConnectionLimits, where: string): ResolvedLimits {
  const limits = { ...defaultLimits } as { -readonly [K in keyof ResolvedLimits]: ResolvedLimits[K] };
  for (const name of positive) {
    const value = options[name];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new ConfigurationError(where, `${name} must be a number of seconds above 0, not ${String(value)}`);
    limits[name] = value;
  }
  for (const name of zeroOrMore) {
    const value = options[name];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new ConfigurationError(where, `${name} must be a whole number, 0 or more, not ${String(value)}`);
    limits[name] = value;
  }
  if (options.limitLoopback !== undefined) limits.limitLoopback = options.limitLoopback === true;
  return limits;
}

/** Whether an address (as a runtime reports a peer) is a loopback one: 127.0.0.0/8, ::1, or 127.x mapped into IPv6. */
export function isLoopbackAddress(address: string | undefined): boolean {
  return address !== undefined && (address === '::1' || /^(::ffff:)?127\./.test(address));
}

/** The error a body's reader gets when the client broke a limit; the core answers it with 408. */
export function requestTimeout(upload: boolean, limits: ResolvedLimits): ApiError {
  return new ApiError(
    'REQUEST_TIMEOUT',
    upload
      ? `The upload came in slower than ${limits.uploadMinBytesPerSecond} bytes per second over ${limits.uploadRateWindowSeconds} s; nothing of it was kept. Send it again.`
      : `The request body did not arrive within ${limits.bodyTimeoutSeconds} s; send it again.`,
  );
}

/**
 * The upload routes: a PUT to a signed URL, and a PATCH of a resumable upload (tus: its bytes as
 * application/offset+octet-stream, which no JSON endpoint takes). Every other body is JSON.
 */
export function isUploadMethod(method: string, contentType?: string | null): boolean {
  return method === 'PUT' || (method === 'PATCH' && contentType === 'application/offset+octet-stream');
}

/**
 * A request body the watchdog watches. The reader keeps the figures up to date as it reads; the
 * watchdog calls `expire` when the client broke a limit. Bodies are classes of the bindings, so
 * that nothing is allocated per request for the bookkeeping.
 */
/**
 * How much of a refused request body (a 413, or any answer given before the body was read) a
 * binding reads and discards before it answers. A client is usually still sending when it is
 * refused; a server that answers and closes with unread bytes in its socket makes the kernel reset
 * the connection, and the client sees ECONNRESET instead of the 413 (measured on Deno and Bun).
 * Draining first lets the client finish its send and read the answer, and the connection stays
 * usable for the next request. Within these bounds only, and under the body limits above (a slow
 * drip is still cut by the watchdog); past them the answer goes out and the connection closes.
 */
export const refusedBodyDrain = Object.freeze({ maxBytes: 64 * 1024 * 1024, maxMs: 10_000 });

/**
 * Reads and discards what is left of `body` within refusedBodyDrain: true when the body ended
 * there (the connection can carry the next request), false when a bound, a limit or the client
 * stopped it (the answer must close the connection).
 */
export async function drainRest(body: AsyncIterator<Uint8Array>): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Its own deadline too: a server without the watchdog (a test listener) must not wait on a silent client.
  const late = new Promise<null>((resolve) => (timer = setTimeout(resolve, refusedBodyDrain.maxMs, null)));
  let bytes = 0;
  try {
    for (;;) {
      const next = await Promise.race([body.next(), late]);
      if (next === null) return false;
      if (next.done) return true;
      bytes += next.value.byteLength;
      if (bytes > refusedBodyDrain.maxBytes) return false;
    }
  } catch {
    // The client broke off or a limit cut the body: the answer goes out and the connection closes, as the caller is told.
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export interface WatchedBody {
  /** An upload (rate rule) or a JSON body (deadline rule). */
  readonly upload: boolean;
  /** When the reader first waited for the client (ms, Date.now()). */
  watchStart: number;
  /** When the pending wait began, or -1 when the reader is not waiting for the client. */
  waitingSince: number;
  /** Time spent waiting for the client in the current rate window, pending wait excluded. */
  windowWaitMs: number;
  /** Bytes read in the current rate window. */
  windowBytes: number;
  /** Called once, by the watchdog, when the client broke a limit. */
  expire(error: ApiError): void;
}

interface RunningTimer {
  unref?(): void;
}

/** Keeps the process from waiting on the interval: Node and Bun unref the timer object, Deno takes the id. */
function unref(timer: unknown): void {
  if (typeof timer === 'object' && timer !== null && typeof (timer as RunningTimer).unref === 'function') (timer as RunningTimer).unref!();
  else if (typeof timer === 'number') (globalThis as { Deno?: { unrefTimer?(id: number): void } }).Deno?.unrefTimer?.(timer);
}

/**
 * The body watchdog of one server (or handler). JSON bodies must be whole within the body timeout
 * of the reader's first wait; an upload must deliver `uploadMinBytesPerSecond` for each window of
 * time its reader spent waiting for the client. Time the reader spends elsewhere (a slow disk or
 * object store pushing back) is not the client's and is not counted.
 */
export class BodyWatchdog {
  readonly #bodies = new Set<WatchedBody>();
  readonly #bodyMs: number;
  readonly #windowMs: number;
  readonly #minWindowBytes: number;
  readonly #tickMs: number;
  #timer: unknown = null;

  constructor(readonly limits: ResolvedLimits) {
    this.#bodyMs = limits.bodyTimeoutSeconds * 1000;
    this.#windowMs = limits.uploadRateWindowSeconds * 1000;
    this.#minWindowBytes = limits.uploadMinBytesPerSecond * limits.uploadRateWindowSeconds;
    // Checked a few times per limit: a broken limit is found within a quarter of it (at most a second) late.
    this.#tickMs = Math.max(50, Math.min(1000, Math.min(this.#bodyMs, this.#windowMs) / 4));
  }

  /** Watches a body from now on: called by its reader the first time it waits for the client. */
  watch(body: WatchedBody, now: number): void {
    body.watchStart = now;
    body.windowWaitMs = 0;
    body.windowBytes = 0;
    if (body.upload && this.#minWindowBytes === 0) return;
    this.#bodies.add(body);
    if (this.#timer === null) {
      this.#timer = setInterval(() => this.sweep(Date.now()), this.#tickMs);
      unref(this.#timer);
    }
  }

  /** Stops watching a body: it was read whole, or its reading ended otherwise. */
  forget(body: WatchedBody): void {
    this.#bodies.delete(body);
  }

  /** How many bodies are watched now (for tests and diagnostics). */
  get size(): number {
    return this.#bodies.size;
  }

  /** One check of every watched body; public so that a test can drive it with its own clock. */
  sweep(now: number): void {
    if (this.#bodies.size === 0) {
      clearInterval(this.#timer as Parameters<typeof clearInterval>[0]);
      this.#timer = null;
      return;
    }
    for (const body of this.#bodies) {
      if (!body.upload) {
        if (now - body.watchStart >= this.#bodyMs) this.#expire(body);
        continue;
      }
      const waited = body.windowWaitMs + (body.waitingSince >= 0 ? now - body.waitingSince : 0);
      if (waited < this.#windowMs) continue;
      if (body.windowBytes < this.#minWindowBytes) {
        this.#expire(body);
        continue;
      }
      // The client kept the rate over this window: a new one starts.
      body.windowWaitMs = 0;
      body.windowBytes = 0;
      if (body.waitingSince >= 0) body.waitingSince = now;
    }
  }

  #expire(body: WatchedBody): void {
    this.#bodies.delete(body);
    body.expire(requestTimeout(body.upload, this.limits));
  }
}

/**
 * Connections (or, where a runtime shows no connections, requests in flight) per client address,
 * capped at `maxConnectionsPerAddress`. Loopback is not counted unless `limitLoopback`.
 */
export class AddressCounter {
  readonly #counts = new Map<string, number>();
  readonly #max: number;
  readonly #loopback: boolean;

  constructor(limits: ResolvedLimits) {
    this.#max = limits.maxConnectionsPerAddress;
    this.#loopback = limits.limitLoopback;
  }

  /** Whether this counter caps anything at all. */
  get active(): boolean {
    return this.#max > 0;
  }

  /**
   * Counts one more for `address`: the address to release later (the same string), null when it is
   * not counted (no cap, no address, loopback), or false when it is over the cap and must be refused.
   */
  take(address: string | undefined): string | null | false {
    if (this.#max === 0 || address === undefined || address === '') return null;
    if (!this.#loopback && isLoopbackAddress(address)) return null;
    const count = this.#counts.get(address) ?? 0;
    if (count >= this.#max) return false;
    this.#counts.set(address, count + 1);
    return address;
  }

  release(address: string): void {
    const count = (this.#counts.get(address) ?? 1) - 1;
    if (count <= 0) this.#counts.delete(address);
    else this.#counts.set(address, count);
  }

  /** How many an address holds now. */
  count(address: string): number {
    return this.#counts.get(address) ?? 0;
  }
}

/** The refusal past the per-address cap: 429 RATE_LIMITED with the error body, and the connection closed. */
export const tooManyConnectionsStatus = statusOf('RATE_LIMITED');
export const tooManyConnectionsBody = JSON.stringify({
  error: 'Too many connections from your address at once; close some and retry.',
  code: 'RATE_LIMITED',
});
