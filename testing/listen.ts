import { createServer } from 'node:http';
import { listenOn } from '../bindings/node/server/listen.js';
import { toCoreRequest } from '../bindings/node/server/to-core.js';
import { writeCoreResponse, writeInternalError } from '../bindings/node/server/from-core.js';
import type { CoreRequest, CoreResponse } from '../core/pipeline/request.js';

export interface ListenOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface ListeningKit {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** `${url}/api/v1`. */
  api: string;
  close(): Promise<void>;
}

/**
 * The kit on node:http, through the Node binding's two conversion files. Unlike serve(), a dropped
 * connection fault destroys the socket, so a real client sees what it sees when a server dies.
 */
export async function listenKit(
  handle: (request: CoreRequest, connection: { drop(): void }) => Promise<CoreResponse>,
  options: ListenOptions = {},
): Promise<ListeningKit> {
  const server = createServer((req, res) => {
    const connection = { drop: () => req.socket.destroy() };
    const request = toCoreRequest(req);
    handle(request, connection)
      .then((response) => writeCoreResponse(req, res, response, request))
      .catch(() => {
        // A dropped connection, or a client that went away while the answer was written.
        if (!res.headersSent && !req.socket.destroyed) {
          writeInternalError(res);
        } else req.socket.destroy();
      });
  });
  server.headersTimeout = 15_000;
  server.requestTimeout = 0;
  const { url, close } = await listenOn(server, options.port, options.host);
  return { url, api: `${url}/api/v1`, close };
}
