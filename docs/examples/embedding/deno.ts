/**
 * MarketKit in your own Deno.serve, under /market beside the app's own routes.
 *
 *   deno run --allow-net --allow-read --allow-write --allow-env docs/examples/embedding/deno.ts
 *
 * (In this repository, whose sources import `./x.js` for `./x.ts`, add --unstable-sloppy-imports.)
 */
import process from 'node:process';
import { denoHandler, type DenoGlobal } from '../../../bindings/deno/index.js'; // marketkit/bindings/deno
import { demoSellerToken, openMarketplace } from './marketplace.js';

// Deno's global, declared for this file; Deno's own types make this line unnecessary.
declare const Deno: DenoGlobal;

const marketplace = await openMarketplace();
const market = denoHandler(marketplace, { basePath: '/market' });

Deno.serve(
  {
    port: Number(process.env.PORT ?? 3000),
    hostname: '127.0.0.1',
    onListen: async ({ port }) => {
      console.log(`MarketKit mounted at http://127.0.0.1:${port}/market (demo seller token: ${await demoSellerToken(marketplace)})`);
    },
  },
  (request, info) => {
    const { pathname } = new URL(request.url);
    if (pathname === '/market' || pathname.startsWith('/market/')) return market(request, info);
    return new Response('the host app');
  },
);
