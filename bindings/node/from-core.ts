import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CoreRequest, CoreResponse } from '../../core/http/request.js';
import { bodyLeftUnread } from './to-core.js';

/**
 * Writes a core response to node's response, streaming bodies that are streams. `request` is the
 * core request made from `req` (toCoreRequest), whose body knows whether it was read whole.
 */
export async function writeCoreResponse(req: IncomingMessage, res: ServerResponse, response: CoreResponse, request: CoreRequest): Promise<void> {
  // A body we did not read (a refused upload) is not drained: the connection closes instead.
  if (bodyLeftUnread(req, request.body)) res.setHeader('connection', 'close');
  const { body } = response;
  if (body === null || typeof body === 'string' || body instanceof Uint8Array) {
    if (body !== null && !response.headers['content-length']) {
      response.headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    }
    res.writeHead(response.status, response.headers);
    res.end(body ?? undefined);
    return;
  }
  res.writeHead(response.status, response.headers);
  await pipeline(Readable.from(body, { objectMode: false }), res);
}
