import { coreRequestFromFetch, fetchResponseFromCore } from '../core/http/fetch.js';
import type { CoreRequest, CoreResponse } from '../core/pipeline/request.js';

// The kit's requests: its fetch turned into the core's request model (without a WHATWG Request
// where it can), bodies read whole or replaced, and connections a fault drops.

/** How the kit breaks a connection: the in-process fetch rejects, a real server destroys the socket. */
export interface Connection {
  drop(): void;
}

/** Thrown by handle() when the connection is to be dropped without a response. */
export class DroppedConnection extends Error {
  constructor() {
    super('marketkit/testing: connection dropped by a fault');
    this.name = 'DroppedConnection';
  }
}

const textEncoder = new TextEncoder();

/** The bytes of a body the kit's fetch built itself, so that handle() need not read them back. */
export const knownBody = Symbol('marketkit.testing.knownBody');

async function* oneChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

const normalizedMethods = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

/**
 * The core request a fetch(url, init) would deliver, built without a WHATWG Request for the common
 * cases (a string or byte body, plain headers): building a Request costs more than the marketplace's
 * own work. It follows fetch's rules: the six standard methods upper-cased, a string body sent as
 * `text/plain;charset=UTF-8` unless a content type is given, no body on GET or HEAD. Null when the
 * call needs the real thing (a stream, FormData, a signal, ...).
 */
export function directRequest(input: string | URL, init: RequestInit = {}, origin: string): CoreRequest | null {
  const { body } = init;
  if (init.signal || (body != null && typeof body !== 'string' && !(body instanceof Uint8Array) && !(body instanceof ArrayBuffer))) return null;
  const headers = init.headers;
  if (headers !== undefined && (headers instanceof Headers || Array.isArray(headers) || typeof headers !== 'object')) return null;
  // The kit's own address with characters a URL keeps as they are, the usual case, is split without a
  // URL parse (the core resolves dot segments itself); anything else goes through URL as fetch would.
  const own = typeof input === 'string' && input.startsWith(origin) && /^[/?][A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/.test(input.slice(origin.length));
  const parsed = own ? { origin, target: input.slice(origin.length) } : (({ origin: o, pathname, search }) => ({ origin: o, target: pathname + search }))(new URL(input));
  const raw = init.method ?? 'GET';
  const method = normalizedMethods.has(raw.toUpperCase()) ? raw.toUpperCase() : raw;
  if (body != null && (method === 'GET' || method === 'HEAD')) throw new TypeError('Request with GET/HEAD method cannot have body.');
  const lower: Record<string, string> = {};
  if (headers) {
    for (const name in headers) {
      const value = String((headers as Record<string, string>)[name]);
      const key = name.toLowerCase();
      lower[key] = key in lower ? `${lower[key]}, ${value}` : value;
    }
  }
  let bytes: Uint8Array | null = null;
  if (typeof body === 'string') {
    bytes = textEncoder.encode(body);
    lower['content-type'] ??= 'text/plain;charset=UTF-8';
  } else if (body instanceof ArrayBuffer) bytes = new Uint8Array(body.slice(0));
  else if (body instanceof Uint8Array) bytes = body.slice();
  if (bytes) lower['content-length'] = String(bytes.byteLength);
  const request: CoreRequest & { [knownBody]?: Uint8Array } = {
    method,
    target: parsed.target,
    header: (name) => lower[name],
    body: bytes ? oneChunk(bytes) : null,
    origin: parsed.origin,
    basePath: '',
  };
  if (bytes) request[knownBody] = bytes;
  return request;
}

/** A fetch function (the same arguments as the global one) answered by `handle` in process, without a port. */
export function inProcessFetch(url: string, handle: (request: CoreRequest) => Promise<CoreResponse>) {
  return async function fetchInProcess(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const target = typeof input === 'string' && input.startsWith('/') ? url + input : input;
    try {
      const direct = target instanceof Request ? null : directRequest(target, init, url);
      const request = direct ?? coreRequestFromFetch(target instanceof Request && init === undefined ? target : new Request(target, init));
      return fetchResponseFromCore(await handle(request));
    } catch (error) {
      // What a fetch gets from a connection closed without a response (undici's wording).
      if (error instanceof DroppedConnection) throw new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
      throw error;
    }
  };
}

/**
 * The same request with another body. Not a spread: a binding's request may be a class whose
 * `header` lives on its prototype (the Node binding's does), which a spread would leave behind.
 */
export function withBody(request: CoreRequest, body: CoreRequest['body']): CoreRequest {
  return {
    method: request.method,
    target: request.target,
    header: (name) => request.header(name),
    body,
    ...(request.origin !== undefined ? { origin: request.origin } : {}),
    ...(request.basePath !== undefined ? { basePath: request.basePath } : {}),
    ...(request.loopback !== undefined ? { loopback: request.loopback } : {}),
  };
}
