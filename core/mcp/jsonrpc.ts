/**
 * JSON-RPC 2.0 as MCP speaks it: what a client sent (request, notification, or something that is
 * not JSON-RPC), the error objects, and the answer to one message or a batch. Nothing here knows
 * MCP's methods: `answerBody` is given the responder that answers a request.
 */
import { errorCatalogue, isApiError, isStorageUnavailable, jsonRpcErrorCatalogue, statusOf, storageUnavailable, type ApiError, type JsonRpcErrorName } from '../errors.js';

/** MCP narrows JSON-RPC's ids: a string or an integer, never null. */
export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  id: JsonRpcId;
  method: string;
  /** `params` as sent; `{}` when absent. */
  params: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId | null; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId | null; error: JsonRpcErrorObject };

/** An error sent to the client as a JSON-RPC error object, with the HTTP status and headers of its answer. */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly status: number;
  readonly data?: unknown;
  readonly headers: Record<string, string>;

  constructor(
    kind: JsonRpcErrorName | { code: number; status: number },
    message: string,
    extra: { data?: unknown; headers?: Record<string, string> } = {},
  ) {
    // An answer to the client: no stack, as ApiError (errors.ts).
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'JsonRpcError';
    const { code, status } = typeof kind === 'string' ? jsonRpcErrorCatalogue[kind] : kind;
    this.code = code;
    this.status = status;
    if (extra.data !== undefined) this.data = extra.data;
    this.headers = extra.headers ?? {};
  }

  /** An error of the table in core/errors.ts, with its JSON-RPC code and HTTP status; `data` is the REST body. */
  static fromApiError(error: ApiError): JsonRpcError {
    return new JsonRpcError({ code: error.jsonRpcCode, status: error.status }, error.message, {
      data: error.toBody(),
      ...(error.headers ? { headers: error.headers } : {}),
    });
  }

  toObject(): JsonRpcErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

/** What one element of a body is. Notifications, and responses to requests we never send, are acknowledged and not answered. */
export type Message =
  | { kind: 'request'; request: JsonRpcRequest }
  | { kind: 'acknowledged' }
  | { kind: 'invalid'; id: JsonRpcId | null; error: JsonRpcError };

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

/** The id of a lone request in a body, for errors found before the body is dispatched; else null. */
export function idOf(body: unknown): JsonRpcId | null {
  return isObject(body) && isId(body.id) ? body.id : null;
}

function invalid(id: JsonRpcId | null, message: string, kind: JsonRpcErrorName = 'invalidRequest'): Message {
  return { kind: 'invalid', id, error: new JsonRpcError(kind, message) };
}

export function classify(value: unknown): Message {
  if (!isObject(value)) return invalid(null, 'Invalid Request: a JSON-RPC message is an object.');
  const id = isId(value.id) ? value.id : null;
  if (value.jsonrpc !== '2.0') return invalid(id, 'Invalid Request: jsonrpc must be "2.0".');
  if (!('method' in value)) {
    const isResponse = id !== null && ('result' in value) !== ('error' in value);
    return isResponse ? { kind: 'acknowledged' } : invalid(id, 'Invalid Request: a request needs a method.');
  }
  if (typeof value.method !== 'string') return invalid(id, 'Invalid Request: method must be a string.');
  const { params } = value;
  if (params !== undefined && typeof params !== 'object') return invalid(id, 'Invalid Request: params must be an object.');
  if (!('id' in value)) return { kind: 'acknowledged' };
  if (id === null) return invalid(null, 'Invalid Request: id must be a string or an integer.');
  if (params !== undefined && !isObject(params)) return invalid(id, 'Invalid params: MCP takes params as an object.', 'invalidParams');
  return { kind: 'request', request: { id, method: value.method, params: params ?? {} } };
}

export interface Answer {
  response: JsonRpcResponse;
  status: number;
  headers: Record<string, string>;
}

export interface Reply {
  /** 202 with no body when nothing needed an answer. */
  status: number;
  headers: Record<string, string>;
  body: JsonRpcResponse | JsonRpcResponse[] | null;
}

export function errorAnswer(id: JsonRpcId | null, error: JsonRpcError): Answer {
  return { response: { jsonrpc: '2.0', id, error: error.toObject() }, status: error.status, headers: error.headers };
}

/**
 * What answers the requests of a body: `respond` answers one (and sets response headers in the bag
 * it is given); `reportBug` hears of anything it threw that is not an error for the client. An
 * object rather than two functions, so that a surface can give one per HTTP request without making
 * closures for it.
 */
export interface Responder {
  respond(request: JsonRpcRequest, headers: Record<string, string>): Promise<unknown>;
  reportBug(error: unknown): void;
}

/** A thrown value that is no answer for the client: 503 for a store that cannot be reached, else internalError. */
export function unexpectedError(error: unknown): JsonRpcError {
  return isStorageUnavailable(error) ? JsonRpcError.fromApiError(storageUnavailable()) : new JsonRpcError('internalError', errorCatalogue.INTERNAL_ERROR.message);
}

/** The answer to one message of a body; null for one that is only acknowledged. */
async function answerOne(value: unknown, responder: Responder): Promise<Answer | null> {
  const message = classify(value);
  if (message.kind === 'acknowledged') return null;
  if (message.kind === 'invalid') return errorAnswer(message.id, message.error);
  const { id } = message.request;
  const headers: Record<string, string> = {};
  try {
    return { response: { jsonrpc: '2.0', id, result: await responder.respond(message.request, headers) }, status: 200, headers };
  } catch (error) {
    if (error instanceof JsonRpcError) return errorAnswer(id, error);
    if (isApiError(error)) return errorAnswer(id, JsonRpcError.fromApiError(error));
    responder.reportBug(error);
    return errorAnswer(id, unexpectedError(error));
  }
}

/** Past this many messages a batch is refused whole: each message may be a tool call. */
export const maxBatchLength = 100;

/**
 * Answers a parsed body: a lone message gets its own status; a batch is answered with an array in
 * the order sent (acknowledged messages left out), or 202 when nothing in it needed an answer.
 * A batch is one HTTP request, so its status speaks for the request: 200, except 401 when a call
 * in it was refused for the request's credentials (the answers of the other messages are still in
 * the body).
 */
export async function answerBody(body: unknown, responder: Responder): Promise<Reply> {
  if (!Array.isArray(body)) {
    const answer = await answerOne(body, responder);
    return answer ? { status: answer.status, headers: answer.headers, body: answer.response } : { status: 202, headers: {}, body: null };
  }
  if (body.length === 0 || body.length > maxBatchLength) {
    const answer = errorAnswer(null, new JsonRpcError('invalidRequest', `Invalid Request: a batch holds 1 to ${maxBatchLength} messages.`));
    return { status: answer.status, headers: answer.headers, body: answer.response };
  }
  const answers: Answer[] = [];
  // One after another, in order: a later call may depend on an earlier one, and each counts against the rate limit.
  for (const value of body) {
    const answer = await answerOne(value, responder);
    if (answer) answers.push(answer);
  }
  if (answers.length === 0) return { status: 202, headers: {}, body: null };
  const unauthorized = statusOf('UNAUTHORIZED');
  return {
    status: answers.some((answer) => answer.status === unauthorized) ? unauthorized : 200,
    headers: Object.assign({}, ...answers.map((answer) => answer.headers)),
    body: answers.map((answer) => answer.response),
  };
}
