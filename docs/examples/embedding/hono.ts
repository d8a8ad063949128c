/**
 * MarketKit inside a Hono app on a prefix, with the fetch handler; here on Node through
 * @hono/node-server, and the same app runs on any host Hono runs on.
 *
 *   npx tsx docs/examples/embedding/hono.ts
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import process from 'node:process';
import { fetchHandler } from '../../../bindings/fetch/index.js'; // marketkit/bindings/fetch
import { demoSellerToken, openMarketplace } from './marketplace.js';

const marketplace = await openMarketplace();
const app = new Hono();

// mount() strips /market from the path; basePath puts it back into the URLs the marketplace issues.
app.mount('/market', fetchHandler(marketplace, { basePath: '/market' }));
app.get('/', (c) => c.text('the host app'));

serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname: '127.0.0.1' }, async (info) => {
  console.log(`MarketKit mounted at http://127.0.0.1:${info.port}/market (demo seller token: ${await demoSellerToken(marketplace)})`);
});
