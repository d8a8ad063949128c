/**
 * MarketKit in your own Bun.serve, under /market beside the app's own routes.
 *
 *   bun docs/examples/embedding/bun.ts
 */
import process from 'node:process';
import { bunHandler, type BunGlobal } from '../../../bindings/bun/index.js'; // marketkit/bindings/bun
import { demoSellerToken, openMarketplace } from './marketplace.js';

// Bun's global, declared for this file; with bun-types installed, leave this line out.
declare const Bun: BunGlobal;

const marketplace = await openMarketplace();
const market = bunHandler(marketplace, { basePath: '/market' });

const server = Bun.serve({
  port: Number(process.env.PORT ?? 3000),
  hostname: '127.0.0.1',
  // Uploads stream through to the blob store; the marketplace enforces its own size limits.
  maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  fetch(request, server) {
    const { pathname } = new URL(request.url);
    if (pathname === '/market' || pathname.startsWith('/market/')) return market(request, server);
    return new Response('the host app');
  },
});
console.log(`MarketKit mounted at http://127.0.0.1:${server.port}/market (demo seller token: ${await demoSellerToken(marketplace)})`);
