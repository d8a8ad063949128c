/**
 * The one error table. Every error a client can see has a code here, and its HTTP status and
 * JSON-RPC code are read from this table and nowhere else (JSON-RPC's own errors, which have no
 * code here, are in jsonRpcErrorCatalogue below).
 *
 * `jsonRpc` is the code when the MCP endpoint sends the error as a JSON-RPC error: an
 * authentication failure, a refused HTTP request (413, 415, an Origin refused with 403), a bug
 * (-32603). A tool call's domain refusals are tool results with `isError` and this `code` instead.
 * JSON-RPC's own codes where one fits; else application codes outside the range JSON-RPC and MCP
 * reserve (-32768 to -32000), read as -31000 minus the HTTP status.
 */
/** JSON-RPC 2.0's own error codes, and MCP's; named once, for both tables below. */
const rpc = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internalError: -32603 } as const;

export const errorCatalogue = {
  INVALID_INPUT: { status: 400, jsonRpc: rpc.invalidParams, message: 'The request is not valid.' },
  UNAUTHORIZED: { status: 401, jsonRpc: -31401, message: 'A valid token is required: send Authorization: Bearer <token>.' },
  FORBIDDEN: { status: 403, jsonRpc: -31403, message: 'This token may not do that.' },
  NOT_A_SELLER: { status: 403, jsonRpc: -31403, message: 'Only approved sellers can create listings.' },
  ACCOUNT_RESTRICTED: { status: 403, jsonRpc: -31403, message: 'This seller account is restricted: it can read its listings and delete its drafts, but not create, change, upload to or submit a listing.' },
  NOT_FOUND: { status: 404, jsonRpc: -31404, message: 'Not found.' },
  METHOD_NOT_ALLOWED: { status: 405, jsonRpc: rpc.invalidRequest, message: 'Method not allowed.' },
  REQUEST_TIMEOUT: { status: 408, jsonRpc: -31408, message: 'The request did not arrive in time; send it again.' },
  CONFLICT: { status: 409, jsonRpc: -31409, message: 'Conflict.' },
  INVALID_STATUS: { status: 409, jsonRpc: -31409, message: 'The listing status does not allow this.' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, jsonRpc: -31409, message: 'A request with this Idempotency-Key is still running; retry after Retry-After.' },
  NOT_DRAFT: { status: 409, jsonRpc: -31409, message: 'Only draft listings can be deleted.' },
  LISTING_IS_LIVE: { status: 409, jsonRpc: -31409, message: 'The listing is published; a new file goes through version review: POST /api/v1/assets/{id}/versions, then upload and submit the version (docs/moderation.md, "Versions").' },
  PAYOUTS_REQUIRED: { status: 409, jsonRpc: -31409, message: 'Connect payouts before a paid listing goes live.' },
  PRECONDITION_FAILED: { status: 409, jsonRpc: -31409, message: 'This change needs a plan feature the account does not have.' },
  VERSION_NOT_HIGHER: { status: 409, jsonRpc: -31409, message: 'The version must be higher than every earlier version of the listing.' },
  UPLOAD_OFFSET_MISMATCH: { status: 409, jsonRpc: -31409, message: "The PATCH's Upload-Offset is not the upload's offset: ask HEAD for it and send from there." },
  UPLOAD_GONE: { status: 410, jsonRpc: -31410, message: 'This upload was terminated or has expired; ask upload-url for a new one.' },
  TUS_VERSION_UNSUPPORTED: { status: 412, jsonRpc: rpc.invalidRequest, message: 'Send Tus-Resumable: 1.0.0.' },
  PAYLOAD_TOO_LARGE: { status: 413, jsonRpc: rpc.invalidRequest, message: 'The request body is too large.' },
  STORAGE_QUOTA_EXCEEDED: { status: 413, jsonRpc: -31413, message: "The upload would take the account past its storage quota; delete drafts or files it no longer needs." },
  UPLOAD_LOCKED: { status: 423, jsonRpc: -31423, message: 'Another request is appending to this upload; ask HEAD for the offset once it is done.' },
  URI_TOO_LONG: { status: 414, jsonRpc: rpc.invalidRequest, message: 'The request target is too long.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, jsonRpc: rpc.invalidRequest, message: 'Send the body as application/json.' },
  NO_FILE: { status: 422, jsonRpc: -31422, message: 'Upload and confirm a file before submitting.' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, jsonRpc: -31422, message: 'This Idempotency-Key was used for another request; use a new key for a new request.' },
  BATCH_FAILED: { status: 422, jsonRpc: -31422, message: 'Every item of the batch failed.' },
  EMPTY_FILE: { status: 422, jsonRpc: -31422, message: "The uploaded file is empty: a listing's file has at least one byte." },
  CHECKSUM_MISMATCH: { status: 422, jsonRpc: -31422, message: 'The sha256 given is not the SHA-256 of the uploaded bytes; nothing was confirmed.' },
  UPLOAD_CHECKSUM_MISMATCH: { status: 460, jsonRpc: -31460, message: "The chunk's bytes do not match its Upload-Checksum; it was dropped and the offset did not move." },
  RATE_LIMITED: { status: 429, jsonRpc: -31429, message: 'Too many requests; back off and retry.' },
  INTERNAL_ERROR: { status: 500, jsonRpc: rpc.internalError, message: 'Internal error; retry.' },
  SERVICE_UNAVAILABLE: { status: 503, jsonRpc: -31503, message: 'The service is degraded; retry later.' },
} as const satisfies Record<string, { status: number; jsonRpc: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** The HTTP status a code is answered with: every status of an error, wherever it is sent, is read here. */
export function statusOf(code: ErrorCode): number {
  return errorCatalogue[code].status;
}

/**
 * The errors of the MCP endpoint that are JSON-RPC's own, not a code of the table above: their
 * JSON-RPC code and the HTTP status of the answer to a lone message (a batch has its own status:
 * core/mcp/jsonrpc.ts, answerBody). An unknown method is a 404 in the 2026-07-28 transport
 * (unknownMethod) and a plain JSON-RPC error, 200, before it (methodNotFound).
 */
export const jsonRpcErrorCatalogue = {
  parseError: { code: rpc.parseError, status: 400 },
  invalidRequest: { code: rpc.invalidRequest, status: 400 },
  notAcceptable: { code: rpc.invalidRequest, status: 406 },
  methodNotFound: { code: rpc.methodNotFound, status: 200 },
  unknownMethod: { code: rpc.methodNotFound, status: 404 },
  invalidParams: { code: rpc.invalidParams, status: 200 },
  // A 2026-07-28 request without its `_meta` (or a required field of it): 400, as that revision requires.
  invalidMeta: { code: rpc.invalidParams, status: 400 },
  internalError: { code: errorCatalogue.INTERNAL_ERROR.jsonRpc, status: errorCatalogue.INTERNAL_ERROR.status },
  headerMismatch: { code: -32020, status: 400 },
  unsupportedProtocolVersion: { code: -32022, status: 400 },
} as const satisfies Record<string, { code: number; status: number }>;

export type JsonRpcErrorName = keyof typeof jsonRpcErrorCatalogue;

/**
 * The refusals Node's HTTP parser sends before any application code runs, with no body and so no
 * code of the table above: a request it cannot read, headers past the limit, a chunk extension past
 * its limit. Every binding gives Node's answer (bindings/fetch, refusalLikeNode; bindings/node), so
 * these are Node's numbers and stay so whatever the table says.
 */
export const parserRefusalStatus = { malformed: 400, headersTooLarge: 431, chunkExtensionsTooLarge: 413 } as const;

export interface ErrorDetail {
  /** The field, as a dotted path with indices: `title`, `tags[3]`, `socials.twitter`. */
  path: string;
  message: string;
}

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  details?: ErrorDetail[];
}

/** An error meant for the client: it carries a code of the table and a message safe to show. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details?: ErrorDetail[];
  /** Extra response headers (Allow, Retry-After, WWW-Authenticate). */
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message?: string, extra: { details?: ErrorDetail[]; headers?: Record<string, string> } = {}) {
    // An answer to the client, not a fault of ours: its stack says nothing, and capturing one costs
    // about 11 µs, more than the rest of a refusal (401 floods, 404 probes). Faults keep theirs.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message ?? errorCatalogue[code].message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
    this.code = code;
    if (extra.details) this.details = extra.details;
    if (extra.headers) this.headers = extra.headers;
  }

  get status(): number {
    return errorCatalogue[this.code].status;
  }

  /** The JSON-RPC code, for the MCP endpoint. */
  get jsonRpcCode(): number {
    return errorCatalogue[this.code].jsonRpc;
  }

  /** The same error with more response headers (the rate-limit headers of an authenticated call). */
  withHeaders(headers: Record<string, string>): ApiError {
    return new ApiError(this.code, this.message, { ...(this.details ? { details: this.details } : {}), headers: { ...this.headers, ...headers } });
  }

  toBody(): ErrorBody {
    return this.details ? { error: this.message, code: this.code, details: this.details } : { error: this.message, code: this.code };
  }
}

/** The body of 500 INTERNAL_ERROR as JSON text: the last-resort answer of a binding whose handler threw. */
export const internalErrorJson = JSON.stringify(new ApiError('INTERNAL_ERROR').toBody());

/** INVALID_INPUT naming the field, the shape every validation failure takes. */
export function invalidInput(path: string, message: string): ApiError {
  return new ApiError('INVALID_INPUT', `${path} ${message}`, { details: [{ path, message }] });
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/**
 * A mistake of the programmer who configured MarketKit (bad options, a broken adapter). Never
 * sent to a client as is: the HTTP layer answers INTERNAL_ERROR and reports it.
 */
export class ConfigurationError extends Error {
  constructor(where: string, message: string) {
    super(`${where}: ${message}`);
    this.name = 'ConfigurationError';
  }
}

/**
 * The store behind a port cannot be reached: a database that is down or restarting, a connection
 * lost. What failed was not done (or was rolled back), and the store answers again once it is
 * back. Adapters throw it, or a subclass (the PostgreSQL adapter's PostgresUnavailable); an error
 * of any class with `code: 'STORAGE_UNAVAILABLE'` counts too. Every surface (REST, MCP, admin)
 * answers it with 503 SERVICE_UNAVAILABLE and Retry-After, never with the adapter's message, and
 * onError hears of it once a minute at most while it lasts.
 */
export class StorageUnavailableError extends Error {
  readonly code = 'STORAGE_UNAVAILABLE' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}

/** Whether `error` says a store cannot be reached (StorageUnavailableError, or code STORAGE_UNAVAILABLE). */
export function isStorageUnavailable(error: unknown): boolean {
  return error instanceof StorageUnavailableError || (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'STORAGE_UNAVAILABLE');
}

/** Seconds a client is told to wait (Retry-After) when a store cannot be reached: about a database restart. */
export const storageRetryAfterSeconds = 5;

/** The client's answer to a store that cannot be reached: 503 SERVICE_UNAVAILABLE with Retry-After. */
export function storageUnavailable(): ApiError {
  return new ApiError('SERVICE_UNAVAILABLE', 'The marketplace cannot reach its storage at the moment; retry in a few seconds.', {
    headers: { 'retry-after': String(storageRetryAfterSeconds) },
  });
}

/** What hears errors when the embedder gives no onError: the console, naming the request. */
export function defaultOnError(error: unknown, request: { method: string; path: string; requestId: string }): void {
  console.error(`marketkit: ${request.method} ${request.path} (request ${request.requestId}) failed:`, error);
}

/** How often onError hears of a store that cannot be reached while the outage lasts. */
const outageReportMs = 60_000;

/**
 * onError, hearing of a store that cannot be reached (StorageUnavailableError) at most once a
 * minute of `clock` (the marketplace's clock port; a clock set back tells again): during an outage
 * every request fails the same way, and one report says so. Other errors pass as they come.
 */
export function outagesOncePerMinute<R>(onError: (error: unknown, request: R) => void, clock: { now(): number }): (error: unknown, request: R) => void {
  let reportedAt = -Infinity;
  return (error, request) => {
    if (isStorageUnavailable(error)) {
      const now = clock.now();
      if (now - reportedAt < outageReportMs && now >= reportedAt) return;
      reportedAt = now;
    }
    onError(error, request);
  };
}
