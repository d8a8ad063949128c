import { blobRoutePrefix } from '../core/operations/blob-urls.js';
import { operationAt } from '../core/http/routes.js';

/** One call as the kit saw it: what the client sent and what it got. */
export interface LoggedRequest {
  /** 1, 2, 3, ... since the last reset. */
  seq: number;
  method: string;
  /** The path and query as sent: `/api/v1/assets?limit=2`. */
  path: string;
  /** The REST operation it reached (`createAsset`), `upload` for a signed-URL PUT, else null. */
  operation: string | null;
  /** The request body: parsed JSON, text, `{ bytes }` for binary and uploads, or null. */
  body: unknown;
  /** The Authorization header's first 12 characters (`Bearer smcp_`), never the whole token. */
  authorization: string | null;
  /** The status the client got; null when the connection was dropped. */
  status: number | null;
  /** The `code` of an error body, else null. */
  code: string | null;
  /** The response body: parsed JSON, text, `{ bytes }`, or null. */
  response: unknown;
  /** The fault the kit injected, if any: `rateLimit`, `drop`, `latency+error`, ... */
  fault: string | null;
  /** The kit clock's time when the call arrived. */
  at: string;
}

export type RequestMatch = Partial<Pick<LoggedRequest, 'method' | 'operation' | 'status' | 'code' | 'fault'>> & {
  /** A path prefix or a pattern the path (with its query) must match. */
  path?: string | RegExp;
};

export interface RequestLog {
  /** The calls since the last reset, oldest first; those matching `match` if given. */
  list(match?: RequestMatch): LoggedRequest[];
  count(match?: RequestMatch): number;
  last(match?: RequestMatch): LoggedRequest | undefined;
  clear(): void;
}

function matches(match: RequestMatch, entry: LoggedRequest): boolean {
  for (const [key, value] of Object.entries(match)) {
    if (key === 'path') {
      if (value instanceof RegExp ? !value.test(entry.path) : !entry.path.startsWith(value as string)) return false;
    } else if (entry[key as keyof LoggedRequest] !== value) return false;
  }
  return true;
}

export function createRequestLog() {
  let entries: LoggedCall[] = [];
  const pick = (match?: RequestMatch) => (match ? entries.filter((e) => matches(match, e)) : entries);
  // Plain objects out (bodies parsed on the way, once): what a test compares and prints.
  const log: RequestLog & { add(entry: LoggedCall): void } = {
    list: (match) => pick(match).map((e) => e.toJSON()),
    count: (match) => pick(match).length,
    last: (match) => pick(match).at(-1)?.toJSON(),
    clear: () => {
      entries = [];
    },
    /** Numbers and keeps the call itself, whose bodies stay unparsed until a test reads them. */
    add(entry) {
      entry.seq = entries.length + 1;
      entries.push(entry);
    },
  };
  return log;
}

const textDecoder = new TextDecoder();

/** The REST operation a call reaches, `upload` for a signed-URL PUT, else null. */
export function operationOf(method: string, path: string): string | null {
  if (path.startsWith(blobRoutePrefix)) return method === 'PUT' ? 'upload' : null;
  return operationAt(method, path)?.name ?? null;
}

/** A body as the log shows it: parsed JSON, text, or `{ bytes }` for anything else. */
export function described(bytes: Uint8Array | string, contentType: string | undefined): unknown {
  if (typeof bytes !== 'string' && bytes.byteLength === 0) return null;
  if (typeof bytes !== 'string' && !/json|text/.test(contentType ?? 'application/json')) return { bytes: bytes.byteLength };
  const text = typeof bytes === 'string' ? bytes : textDecoder.decode(bytes);
  if (/json/.test(contentType ?? 'application/json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

const unset = Symbol('unset');

/**
 * A logged call that keeps what it saw raw and parses it only when a test reads it, so that a test
 * that never looks at the log pays almost nothing for it.
 */
export class LoggedCall implements LoggedRequest {
  seq = 0;
  #operation: string | null | typeof unset = unset;
  #body: unknown = unset;
  #response: unknown = unset;

  constructor(
    readonly method: string,
    readonly path: string,
    private readonly routePath: string,
    readonly authorization: string | null,
    readonly status: number | null,
    readonly fault: string | null,
    private readonly arrivedAt: number,
    private readonly sent: { bytes: Uint8Array | null; contentType: string | undefined; uploaded: number | null },
    /** A string or bytes with its content type, or a value as it is. */
    private readonly got: { raw: unknown; contentType: string | undefined },
  ) {}

  get operation(): string | null {
    if (this.#operation === unset) this.#operation = operationOf(this.method, this.routePath);
    return this.#operation;
  }

  get body(): unknown {
    if (this.#body === unset) {
      const { bytes, contentType, uploaded } = this.sent;
      this.#body = uploaded !== null ? { bytes: uploaded } : bytes ? described(bytes, contentType) : null;
    }
    return this.#body;
  }

  get response(): unknown {
    if (this.#response === unset) {
      const { raw, contentType } = this.got;
      this.#response = typeof raw === 'string' || raw instanceof Uint8Array ? described(raw, contentType) : raw;
    }
    return this.#response;
  }

  get code(): string | null {
    const value = this.response;
    return typeof value === 'object' && value !== null && typeof (value as { code?: unknown }).code === 'string' ? (value as { code: string }).code : null;
  }

  get at(): string {
    return new Date(this.arrivedAt).toISOString();
  }

  toJSON(): LoggedRequest {
    const { seq, method, path, operation, body, authorization, status, code, response, fault, at } = this;
    return { seq, method, path, operation, body, authorization, status, code, response, fault, at };
  }
}
