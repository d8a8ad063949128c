import type { ByteStream } from '../ports/blobs.js';
import type { CoreRequest, CoreResponse } from './request.js';

/** A WHATWG Request as a core request: no copy of the body, which stays a stream. */
export function coreRequestFromFetch(request: Request, basePath = ''): CoreRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    target: url.pathname.slice(basePath.length) + url.search,
    header: (name) => request.headers.get(name) ?? undefined,
    body: request.body as unknown as ByteStream | null,
    origin: url.origin,
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
