import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A node:http server listening: its URL, and close (which ends the open connections too). */
export interface Listening {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts `server` listening on `port` (0: any free one) and `host` (127.0.0.1 by default);
 * resolves once it listens, rejects if it cannot. Used by serve() and by the testing kit's listen().
 */
export async function listenOn(server: Server, port = 0, host = '127.0.0.1'): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const at = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${at}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
