/**
 * A fetch for the typed client on Node that streams request bodies with backpressure. Node's
 * own fetch (undici) keeps a streamed request body in memory until the request ends
 * (nodejs/undici#4058: a 400 MB upload grew the process by 400 MB here), so a ReadableStream body
 * goes through node:http instead, piped with backpressure; every other request is the global
 * fetch's. `createClient({ fetch: nodeFetch, ... })`; `marketkit mcp` and `marketkit upload` use it,
 * and `marketkit serve` on Node gives it to the S3 blob store (`s3Blobs({ fetch })`).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

function responseOf(res: IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const status = res.statusCode ?? 502;
  const empty = status === 204 || status === 304 || status < 200;
  if (empty) res.resume();
  return new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, statusText: res.statusMessage ?? '', headers });
}

/**
 * A request whose answer may take long comes through node:http too: Node's fetch gives up on an
 * answer whose headers take more than 300 s (undici's headersTimeout), and a confirm-file of a file
 * over 5 GiB on a store without UploadPartCopy (s3rver) copies the whole object before it answers.
 * The caller's signal still bounds it.
 */
const plainBody = (body: unknown): body is string | Uint8Array | null | undefined => body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;

export const nodeFetch: typeof fetch = async (input, init) => {
  const body = init?.body;
  if (input instanceof Request) return globalThis.fetch(input, init);
  if (!(body instanceof ReadableStream)) {
    if ((init?.method ?? 'GET').toUpperCase() === 'GET' || !plainBody(body)) return globalThis.fetch(input, init);
    return new Promise<Response>((resolve, reject) => {
      const url = new URL(String(input));
      const headers = Object.fromEntries(new Headers(init?.headers).entries());
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const signal = init?.signal ?? undefined;
      const req = send(url, { method: init?.method ?? 'POST', headers, ...(signal ? { signal } : {}) }, (res) => resolve(responseOf(res)));
      req.on('error', reject);
      req.end(body ?? undefined);
    });
  }
  const url = new URL(String(input));
  const headers = Object.fromEntries(new Headers(init?.headers).entries());
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const signal = init?.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    const req = send(url, { method: init?.method ?? 'POST', headers, ...(signal ? { signal } : {}) }, (res) => resolve(responseOf(res)));
    req.on('error', reject);
    pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>), req).catch((error) => {
      req.destroy(error);
      reject(error);
    });
  });
};
