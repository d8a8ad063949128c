/**
 * The one error class of the typed client. Whatever went wrong (a refusal of the API, a network
 * failure, an answer that is not the API's), the caller catches a MarketKitError and reads the
 * same fields: the HTTP status, the stable code, and the field the server named.
 */

export interface MarketKitErrorDetail {
  /** The field, as a dotted path: `title`, `tags[3]`, `socials.twitter`. */
  path: string;
  message: string;
}

export interface MarketKitErrorInit {
  status: number;
  code: string;
  message: string;
  details?: MarketKitErrorDetail[];
  requestId?: string | null;
  retryAfterSeconds?: number | null;
  method?: string;
  url?: string;
  cause?: unknown;
}

export class MarketKitError extends Error {
  /** The HTTP status; 0 when no answer arrived (network failure, aborted). */
  readonly status: number;
  /** The API's code (`INVALID_INPUT`, `NOT_FOUND`, ...), or `NETWORK_ERROR`, `ABORTED`, `UNEXPECTED_RESPONSE`. */
  readonly code: string;
  /** The first field the server named (INVALID_INPUT), else null. */
  readonly field: string | null;
  readonly details: MarketKitErrorDetail[];
  /** The server's `x-request-id`, to quote in a support request. */
  readonly requestId: string | null;
  /** A 429's Retry-After, in seconds. */
  readonly retryAfterSeconds: number | null;
  /** The request that failed: `POST /assets`. */
  readonly request: string | null;

  constructor(init: MarketKitErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'MarketKitError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.field = this.details[0]?.path ?? null;
    this.requestId = init.requestId ?? null;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.request = init.method && init.url ? `${init.method} ${init.url}` : null;
  }

  /** The API's `{ error, code, details? }`, as a REST client would have seen it. */
  toBody(): { error: string; code: string; details?: MarketKitErrorDetail[] } {
    return this.details.length > 0 ? { error: this.message, code: this.code, details: this.details } : { error: this.message, code: this.code };
  }
}

export function isMarketKitError(value: unknown): value is MarketKitError {
  return value instanceof MarketKitError;
}

/** Retry-After as seconds: a number of seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}

/** A non-2xx answer as a MarketKitError: the API's error body when it is one, else a description of what came back. */
export async function errorFromResponse(response: Response, method: string, url: string, now: number): Promise<MarketKitError> {
  // A body that cannot be read: the error describes the status alone.
  const text = await response.text().catch(() => '');
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: a proxy's page, say. Described below.
  }
  const common = {
    status: response.status,
    requestId: response.headers.get('x-request-id'),
    retryAfterSeconds: retryAfterSeconds(response.headers.get('retry-after'), now),
    method,
    url,
  };
  if (typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'string') {
    const { error, code, details } = body as { error?: unknown; code: string; details?: unknown };
    return new MarketKitError({
      ...common,
      code,
      message: typeof error === 'string' ? error : `${method} ${url} failed with ${response.status} ${code}`,
      details: Array.isArray(details) ? details.filter(isDetail) : [],
    });
  }
  const excerpt = text.slice(0, 200).replace(/\s+/g, ' ').trim();
  return new MarketKitError({
    ...common,
    code: response.status === 429 ? 'RATE_LIMITED' : 'UNEXPECTED_RESPONSE',
    message: `${method} ${url} answered ${response.status} without an API error body${excerpt ? `: ${excerpt}` : ''}`,
  });
}

function isDetail(value: unknown): value is MarketKitErrorDetail {
  return typeof value === 'object' && value !== null && typeof (value as MarketKitErrorDetail).path === 'string' && typeof (value as MarketKitErrorDetail).message === 'string';
}
