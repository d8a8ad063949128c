/**
 * The suite's HTTP client: plain fetch to the server under test, every exchange recorded so that a
 * failure can show what was sent and what came back. Tokens never appear in a record: each is
 * shown by its fixture name (`<token:seller>`).
 */

export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface Exchange {
  request: SentRequest;
  status: number;
  headers: Headers;
  /** Parsed JSON when the answer is JSON, else the text ('' when empty). */
  body: any;
}

export interface RequestOptions {
  /** A fixture token (redacted in records by its name), or none. */
  token?: string | null;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as it is (with the content type given in headers, if any). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Return a 429 as it is, instead of waiting and asking again (for the rate-limit check). */
  keepRateLimited?: boolean;
}

export interface HttpClientOptions {
  /** The site root: REST under `${baseUrl}/api/v1`, MCP at `${baseUrl}/api/mcp`. */
  baseUrl: string;
  /** Token -> the fixture name it is shown as. */
  tokenNames: Map<string, string>;
  /** The fetch to use (the global one by default). */
  fetch?: typeof fetch;
  /** How long a 429 may make the suite wait in all before it gives up, in ms. Default 180 s. */
  rateLimitBudgetMs?: number;
}

export class HttpClient {
  readonly baseUrl: string;
  readonly api: string;
  readonly mcpUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly tokenNames: Map<string, string>;
  private rateLimitBudgetMs: number;
  /** Every exchange since the last `take()`, oldest first. */
  private log: Exchange[] = [];
  /** How many times a 429 made the suite wait, and for how long in all. */
  readonly rateLimited = { times: 0, waitedMs: 0 };

  constructor(options: HttpClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.api = `${this.baseUrl}/api/v1`;
    this.mcpUrl = `${this.baseUrl}/api/mcp`;
    this.fetchImpl = options.fetch ?? fetch;
    this.tokenNames = options.tokenNames;
    this.rateLimitBudgetMs = options.rateLimitBudgetMs ?? 180_000;
  }

  /** The exchanges recorded since the last call, and a fresh log. */
  take(): Exchange[] {
    const taken = this.log;
    this.log = [];
    return taken;
  }

  redact(token: string | null | undefined): string {
    if (!token) return '';
    return `<token:${this.tokenNames.get(token) ?? 'made-up'}>`;
  }

  /** One request. `path` is under the REST base unless it is absolute (`http...`) or starts with `@/` (site root). */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<Exchange> {
    const url = path.startsWith('http') ? path : path.startsWith('@/') ? `${this.baseUrl}${path.slice(1)}` : `${this.api}${path}`;
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | Uint8Array | undefined = options.raw;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    const shown: SentRequest = { method, url, headers: { ...headers } };
    if (options.token) shown.headers.authorization = `Bearer ${this.redact(options.token)}`;
    if (options.json !== undefined) shown.body = options.json;
    else if (typeof options.raw === 'string') shown.body = options.raw;
    else if (options.raw) shown.body = `<${options.raw.byteLength} bytes>`;

    for (;;) {
      const response = await this.fetchImpl(url, { method, headers, body: body as BodyInit | undefined, redirect: 'manual' });
      const text = await response.text();
      let parsed: unknown = text;
      if ((response.headers.get('content-type') ?? '').includes('json') && text) {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      }
      // A rate limit is the server protecting itself, not a contract answer: wait as told, then ask again.
      if (response.status === 429 && this.rateLimitBudgetMs > 0 && !options.keepRateLimited) {
        const waitMs = Math.min(Math.max(Number(response.headers.get('retry-after')) || 1, 1), 65) * 1000;
        this.rateLimitBudgetMs -= waitMs;
        this.rateLimited.times++;
        this.rateLimited.waitedMs += waitMs;
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        continue;
      }
      const exchange: Exchange = { request: shown, status: response.status, headers: response.headers, body: parsed };
      this.log.push(exchange);
      return exchange;
    }
  }

  get(path: string, token?: string | null, headers?: Record<string, string>) {
    return this.request('GET', path, { token: token ?? null, ...(headers ? { headers } : {}) });
  }
  post(path: string, token: string | null | undefined, json?: unknown) {
    return this.request('POST', path, { token: token ?? null, ...(json !== undefined ? { json } : {}) });
  }
  patch(path: string, token: string | null | undefined, json?: unknown) {
    return this.request('PATCH', path, { token: token ?? null, ...(json !== undefined ? { json } : {}) });
  }
  delete(path: string, token?: string | null) {
    return this.request('DELETE', path, { token: token ?? null });
  }
  /** Step (b) of the upload flow: a PUT to a signed URL, never with an Authorization header. */
  put(signedUrl: string, bytes: Uint8Array | string, contentType: string) {
    return this.request('PUT', signedUrl, { raw: bytes, headers: { 'content-type': contentType } });
  }

  private rpcId = 1;
  /** A JSON-RPC request to the MCP endpoint. */
  rpc(method: string, params: Record<string, unknown> | undefined, token?: string | null, headers: Record<string, string> = {}) {
    return this.request('POST', this.mcpUrl, {
      token: token ?? null,
      json: { jsonrpc: '2.0', id: this.rpcId++, method, ...(params ? { params } : {}) },
      headers: { accept: 'application/json, text/event-stream', ...headers },
    });
  }
  /** tools/call. */
  tool(name: string, args: Record<string, unknown>, token?: string | null) {
    return this.rpc('tools/call', { name, arguments: args }, token);
  }
}

/** A request as one line a person can replay with curl. */
export function replayLine(exchange: Pick<Exchange, 'request'>): string {
  const { method, url, headers, body } = exchange.request;
  const parts = [`curl -X ${method}`];
  for (const [name, value] of Object.entries(headers)) parts.push(`-H '${name}: ${value}'`);
  if (body !== undefined) parts.push(`--data '${typeof body === 'string' ? body : JSON.stringify(body)}'`);
  parts.push(`'${url}'`);
  return parts.join(' ');
}
