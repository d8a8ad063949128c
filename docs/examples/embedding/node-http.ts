/**
 * MarketKit inside a plain node:http server, under /market beside the app's own pages.
 *
 *   npx tsx docs/examples/embedding/node-http.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import process from 'node:process';
import { nodeListener } from '../../../bindings/node/index.js'; // marketkit/bindings/node
import { demoSellerToken, openMarketplace } from './marketplace.js';

const marketplace = await openMarketplace();
const market = nodeListener(marketplace, { basePath: '/market' });

const server = createServer((req, res) => {
  if (req.url === '/market' || req.url?.startsWith('/market/')) {
    req.url = req.url.slice('/market'.length) || '/';
    market(req, res);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/plain' }).end('the host app');
});

server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', async () => {
  const { port } = server.address() as AddressInfo;
  console.log(`MarketKit mounted at http://127.0.0.1:${port}/market (demo seller token: ${await demoSellerToken(marketplace)})`);
});
