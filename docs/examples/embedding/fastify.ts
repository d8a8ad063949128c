/**
 * MarketKit inside Fastify on a prefix: a plugin scope that leaves request bodies unparsed (the
 * marketplace streams its own, uploads included) and hands each request to the Node listener.
 *
 *   npx tsx docs/examples/embedding/fastify.ts
 */
import Fastify from 'fastify';
import process from 'node:process';
import { nodeListener } from '../../../bindings/node/index.js'; // marketkit/bindings/node
import { demoSellerToken, openMarketplace } from './marketplace.js';

const marketplace = await openMarketplace();
const market = nodeListener(marketplace, { basePath: '/market' });
const app = Fastify();

await app.register(
  async (scope) => {
    // Every content type passes through unread, with no body limit of Fastify's.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.all('/*', (request, reply) => {
      reply.hijack();
      request.raw.url = request.raw.url!.slice('/market'.length) || '/';
      market(request.raw, reply.raw);
    });
  },
  { prefix: '/market' },
);
app.get('/', async () => 'the host app');

const address = await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
console.log(`MarketKit mounted at ${address}/market (demo seller token: ${await demoSellerToken(marketplace)})`);
