/**
 * MarketKit as Express middleware on a prefix. Express strips `/market` from req.url and keeps it
 * in req.baseUrl, which the listener reads, so the URLs it issues include the prefix.
 *
 *   npx tsx docs/examples/embedding/express.ts
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import process from 'node:process';
import { nodeListener } from '../../../bindings/node/index.js'; // marketkit/bindings/node
import { demoSellerToken, openMarketplace } from './marketplace.js';

const marketplace = await openMarketplace();
const app = express();

// Before any body parser of yours: the marketplace reads (and streams) its own request bodies.
app.use('/market', nodeListener(marketplace));
app.get('/', (_req, res) => {
  res.type('text/plain').send('the host app');
});

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', async () => {
  const { port } = server.address() as AddressInfo;
  console.log(`MarketKit mounted at http://127.0.0.1:${port}/market (demo seller token: ${await demoSellerToken(marketplace)})`);
});
