import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errorCatalogue, internalErrorJson } from '../../../core/errors.js';
import { jsonContentType, type CoreRequest, type CoreResponse } from '../../../core/pipeline/request.js';
import { settleUnread } from './to-core.js';

/**
 * Writes a core response to node's response, streaming bodies that are streams. `request` is the
 * core request made from `req` (toCoreRequest). What its body left unread (a refused upload) is
 * drained first, within bounds, so that the client reads the answer; past them the answer closes
 * the connection.
 */
export async function writeCoreResponse(req: IncomingMessage, res: ServerResponse, response: CoreResponse, request: CoreRequest): Promise<void> {
  const settled = settleUnread(req, request.body);
  if (settled !== true && !(await settled)) res.setHeader('connection', 'close');
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

/** The last-resort answer when writing the core's response failed before its headers went out: 500 INTERNAL_ERROR, closing the connection. */
export function writeInternalError(res: ServerResponse): void {
  res.writeHead(errorCatalogue.INTERNAL_ERROR.status, { 'content-type': jsonContentType, connection: 'close' });
  res.end(internalErrorJson);
}
