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
  let entries: LoggedRequest[] = [];
  const log: RequestLog & { add(entry: LoggedRequest): LoggedRequest } = {
    list: (match) => (match ? entries.filter((e) => matches(match, e)) : [...entries]),
    count: (match) => (match ? entries.filter((e) => matches(match, e)).length : entries.length),
    last: (match) => (match ? entries.filter((e) => matches(match, e)) : entries).at(-1),
    clear: () => {
      entries = [];
    },
    /** Numbers and keeps the entry itself (not a copy), so that its lazy getters stay lazy. */
    add(entry) {
      entry.seq = entries.length + 1;
      entries.push(entry);
      return entry;
    },
  };
  return log;
}
