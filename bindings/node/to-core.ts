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
 * nobody will read) rather than as an internal error. Read with read() and one 'readable' wait at
 * a time: node's own async iterator costs several microseconds more per request, a share that
 * shows on small JSON calls. Backpressure is the stream's: nothing is read before it is asked for.
 */
async function* bodyOf(req: IncomingMessage): AsyncIterable<Uint8Array> {
  for (;;) {
    let chunk: Buffer | null;
    while ((chunk = req.read() as Buffer | null) !== null) yield chunk;
    if (req.readableEnded) return;
    // Destroyed before its end (the client hung up): no event will come.
    if (req.destroyed) throw endedEarly();
    await new Promise<void>((resolve, reject) => {
      const settle = (error?: unknown) => {
        req.off('readable', onReadable).off('end', onReadable).off('error', settle).off('close', onClose);
        if (error === undefined) resolve();
        else reject(endedEarly());
      };
      const onReadable = () => settle();
      const onClose = () => settle(req.complete ? undefined : 'aborted');
      req.on('readable', onReadable).on('end', onReadable).on('error', settle).on('close', onClose);
    });
  }
}

function endedEarly(): ApiError {
  return new ApiError('INVALID_INPUT', 'The request body ended before it was complete.');
}
