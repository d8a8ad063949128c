import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { CoreRequest } from '../../core/http/request.js';
import { ApiError } from '../../core/errors.js';

const bodiless = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/**
 * A node:http request as a core request, with no WHATWG Request in between: headers are read
 * from node's own object, and the body is the request stream itself.
 */
export function toCoreRequest(req: IncomingMessage, basePath = ''): CoreRequest {
  const encrypted = (req.socket as TLSSocket).encrypted === true;
  const host = req.headers.host;
  const target = req.url ?? '/';
  const hasBody = !bodiless.has(req.method ?? 'GET') || req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  return {
    method: req.method ?? 'GET',
    // Express and Connect strip the mount prefix from req.url; basePath puts it back in URLs we build.
    target,
    header(name) {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    body: hasBody ? bodyOf(req) : null,
    ...(host ? { origin: `${encrypted ? 'https' : 'http'}://${host}` } : {}),
    basePath,
    loopback: isLoopback(req.socket.localAddress),
  };
}

/** Whether the server side of the connection is a loopback address: 127.0.0.0/8, ::1, or 127.x mapped into IPv6. */
function isLoopback(address: string | undefined): boolean {
  return address !== undefined && (address === '::1' || /^(::ffff:)?127\./.test(address));
}

/**
 * The request stream, with a client that hangs up mid-body reported as the client's doing (a 400
 * nobody will read) rather than as an internal error.
 */
async function* bodyOf(req: IncomingMessage): AsyncIterable<Uint8Array> {
  try {
    // A body that has wholly arrived (a JSON call, as a rule) is taken in one read, without the
    // stream's async iterator; anything longer is streamed.
    if (req.complete && !req.readableEnded) {
      const whole = req.read() as Buffer | null;
      if (whole) yield whole;
      if (req.readableLength === 0) return;
    }
    yield* req;
  } catch {
    throw new ApiError('INVALID_INPUT', 'The request body ended before it was complete.');
  }
}
