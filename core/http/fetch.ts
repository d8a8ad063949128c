import type { ByteStream } from '../ports/blobs.js';
import type { CoreRequest, CoreResponse } from '../pipeline/request.js';

/**
 * A WHATWG Request as a core request: no copy of the body, which stays a stream. The origin is
 * the scheme and the Host header, as on Node: Deno builds `Request.url` from an absolute-form
 * target (`GET http://evil.example/...`), whose host must not end up in the URLs we issue. A host
 * that strips the mount prefix itself (Hono's `mount`) passes a path without `basePath`: kept.
 */
export function coreRequestFromFetch(request: Request, basePath = ''): CoreRequest {
  // A CONNECT's authority form (`host:port`) is no URL on Bun: the frame refuses it, by its method.
  if (!URL.canParse(request.url)) return { method: request.method, target: request.url, header: (name) => request.headers.get(name) ?? undefined, body: null, origin: '', basePath };
  const url = new URL(request.url);
  const host = request.headers.get('host');
  const mounted = basePath !== '' && (url.pathname === basePath || url.pathname.startsWith(`${basePath}/`));
  return {
    method: request.method,
    target: (mounted ? url.pathname.slice(basePath.length) || '/' : url.pathname) + url.search,
    header: (name) => request.headers.get(name) ?? undefined,
    body: request.body as unknown as ByteStream | null,
    origin: host ? `${url.protocol}//${host}` : url.origin,
    basePath,
  };
}

function toReadableStream(body: ByteStream): ReadableStream<Uint8Array> {
  const iterator = body[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** A core response as a WHATWG Response. */
export function fetchResponseFromCore(response: CoreResponse): Response {
  const { body } = response;
  const init = { status: response.status, headers: response.headers };
  if (body === null || response.status === 204 || response.status === 304) return new Response(null, init);
  if (typeof body === 'string' || body instanceof Uint8Array) return new Response(body as BodyInit, init);
  return new Response(toReadableStream(body), init);
}
