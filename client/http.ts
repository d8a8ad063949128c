/**
 * One JSON request to the API, with the credential, the retry policy and the error class applied.
 * Everything the typed client does goes through `send`; uploads add their PUT (upload.ts).
 */
import { errorFromResponse, MarketKitError } from './errors.js';
import { apiBase } from './operations.js';
import { nextDelay, retryPolicy, sleep, type RetryOptions } from './retry.js';

/**
 * Where the bearer comes from: a fixed string, or a source that can renew it (a session
 * exchanged for a developer token, see session.ts).
 */
export interface Credential {
  /** The bearer value for the next request. */
  token(): Promise<string>;
  /**
   * Called once after a 401 with the value that was refused. Resolve true when a retry with a
   * new value may succeed; throw a MarketKitError that says what to do when it cannot.
   */
  renew?(refused: string): Promise<boolean>;
}

export interface ClientOptions {
  /** The site (`https://market.example`) or its API base (`https://market.example/api/v1`). */
  baseUrl: string;
  /** The API's path below the site; default `/api/v1`. (`/api/admin` with a service key reaches the admin surface.) */
  apiPath?: string;
  /** A developer token (`smcp_...`), a session JWT, or a renewing Credential. Omit for /health only. */
  token?: string | Credential;
  /** A fetch to use instead of the global one (tests, a proxy agent, the testing kit). */
  fetch?: typeof fetch;
  retry?: RetryOptions | false;
  /** Extra headers on every API request (not on signed-URL PUTs). */
  headers?: Record<string, string>;
  /**
   * Whether writes (POST, PUT, PATCH, DELETE) carry an `Idempotency-Key`, which makes them safe to retry
   * after a lost answer. Default: true for the REST API (`/api/v1`), false for other API paths
   * (the admin surface takes no keys, so its writes are not retried after a failure).
   */
  idempotencyKeys?: boolean;
  /** Told before each retry: for logs. */
  onRetry?: (event: { request: string; attempt: number; delayMs: number; status: number | null }) => void;
}

export interface SendOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Statuses returned as results rather than thrown (health's 503). */
  resultStatuses?: number[];
  signal?: AbortSignal;
  /** Whether to send the credential; default true. */
  authenticated?: boolean;
  /**
   * The write's idempotency key; default a fresh UUID for each call of a write (the same for all its
   * retries). Give your own to make a retry of your own (after a crash, say) safe too.
   */
  idempotencyKey?: string;
}

/** Methods that change something: they carry an idempotency key. */
const writeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** `https://market.example` or `.../api/v1`, with or without a trailing slash -> `.../api/v1`. */
export function apiBaseOf(baseUrl: string, apiPath = apiBase): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  if (trimmed.endsWith(apiPath)) return trimmed;
  // A site URL given as its API base, when another API of the site is asked for.
  return `${trimmed.endsWith(apiBase) ? trimmed.slice(0, -apiBase.length) : trimmed}${apiPath}`;
}

export function fixedCredential(value: string): Credential {
  return { token: async () => value };
}

export function createTransport(options: ClientOptions) {
  const api = apiBaseOf(options.baseUrl, options.apiPath);
  const fetchImpl = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const policy = retryPolicy(options.retry);
  const credential = typeof options.token === 'string' ? fixedCredential(options.token) : options.token;
  const keysWrites = options.idempotencyKeys ?? (options.apiPath ?? apiBase) === apiBase;

  function urlOf(path: string, query: SendOptions['query']): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(key, String(value));
    const text = search.toString();
    return `${api}${path}${text ? `?${text}` : ''}`;
  }

  async function fetchOnce(method: string, url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetchImpl(url, { ...init, method });
    } catch (error) {
      if (init.signal?.aborted) throw new MarketKitError({ status: 0, code: 'ABORTED', message: `${method} ${url} was aborted`, method, url, cause: error });
      throw new MarketKitError({
        status: 0,
        code: 'NETWORK_ERROR',
        message: `${method} ${url} failed before an answer arrived: ${(error as Error)?.message ?? error}`,
        method,
        url,
        cause: error,
      });
    }
  }

  async function readBody(response: Response, method: string, url: string): Promise<string> {
    try {
      return await response.text();
    } catch (error) {
      throw new MarketKitError({
        status: 0,
        code: 'NETWORK_ERROR',
        message: `${method} ${url}: the connection broke while the answer arrived: ${(error as Error)?.message ?? error}`,
        method,
        url,
        cause: error,
      });
    }
  }

  /**
   * Sends one request and resolves with its JSON body. Throws a MarketKitError for a refusal,
   * after the retries the policy allows.
   */
  async function send<T>(method: string, path: string, sendOptions: SendOptions = {}): Promise<T> {
    const url = urlOf(path, sendOptions.query);
    const request = `${method} ${path}`;
    // One key for the call, sent again with each of its retries: the server runs the write once.
    const key = sendOptions.idempotencyKey ?? (keysWrites && writeMethods.has(method.toUpperCase()) ? globalThis.crypto.randomUUID() : undefined);
    let renewed = false;
    for (let attempt = 0; ; ) {
      const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
      if (key !== undefined) headers['idempotency-key'] = key;
      let bearer: string | null = null;
      if (sendOptions.authenticated !== false && credential) {
        bearer = await credential.token();
        headers.authorization = `Bearer ${bearer}`;
      }
      if (sendOptions.body !== undefined) headers['content-type'] = 'application/json';
      const init: RequestInit = { headers, ...(sendOptions.body !== undefined ? { body: JSON.stringify(sendOptions.body) } : {}), ...(sendOptions.signal ? { signal: sendOptions.signal } : {}) };
      let response: Response;
      let text: string | undefined;
      try {
        response = await fetchOnce(method, url, init);
        // A body cut off after the headers is a failed attempt like a refused connection.
        if (response.ok || sendOptions.resultStatuses?.includes(response.status)) text = await readBody(response, method, url);
      } catch (error) {
        const delay = error instanceof MarketKitError && error.code === 'NETWORK_ERROR' ? nextDelay(policy, { kind: 'network' }, method, attempt, true, key !== undefined) : null;
        if (delay === null) throw error;
        options.onRetry?.({ request, attempt: attempt + 1, delayMs: delay, status: null });
        await sleep(delay, sendOptions.signal);
        attempt++;
        continue;
      }
      if (text !== undefined) return (text ? JSON.parse(text) : undefined) as T;
      const error = await errorFromResponse(response, method, path, Date.now());
      // Authentication is checked before anything runs, so a retry after renewing is safe for any method.
      if (response.status === 401 && bearer !== null && credential?.renew && !renewed) {
        renewed = true;
        if (await credential.renew(bearer)) continue;
      }
      const outcome = { kind: 'status', status: response.status, retryAfterSeconds: error.retryAfterSeconds, code: error.code } as const;
      const delay = nextDelay(policy, outcome, method, attempt, true, key !== undefined);
      if (delay === null) throw error;
      options.onRetry?.({ request, attempt: attempt + 1, delayMs: delay, status: response.status });
      await sleep(delay, sendOptions.signal);
      attempt++;
    }
  }

  return { api, send, fetch: fetchImpl, policy, fetchOnce };
}

export type Transport = ReturnType<typeof createTransport>;
