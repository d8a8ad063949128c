import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import { nodeListener, serve } from '../../bindings/node/index.js';
import { createMarketplace } from '../../core/index.js';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('as middleware, it serves its own paths and passes every other request on', async () => {
  const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
  const listener = nodeListener(marketplace);
  const server = createServer((req, res) =>
    listener(req, res, () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('the host app');
    }),
  );
  const url = await listen(server);
  try {
    assert.equal(await (await fetch(`${url}/`)).text(), 'the host app');
    assert.equal(await (await fetch(`${url}/about`)).text(), 'the host app');
    const health = await fetch(`${url}/api/v1/health`);
    assert.equal(health.status, 200);
    assert.equal((await health.json()).status, 'ok');
    assert.equal((await fetch(`${url}/api/v1/nope`)).status, 404, 'paths under /api/v1 are the marketplace’s, known or not');
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('mounted under a prefix, the URLs it builds carry the prefix', async () => {
  const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
  const seller = await marketplace.admin.createAccount({ username: 'mounted' });
  const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 't' });
  const listener = nodeListener(marketplace, { basePath: '/market' });
  // What a router does when it mounts a handler on a prefix: strip it from req.url.
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/market/')) {
      req.url = req.url.slice('/market'.length);
      listener(req, res);
    } else {
      res.writeHead(404).end();
    }
  });
  const url = await listen(server);
  try {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await (await fetch(`${url}/market/api/v1/assets`, { method: 'POST', headers, body: JSON.stringify({ title: 'Mounted', slug: 'mounted' }) })).json();
    const issued = await (await fetch(`${url}/market/api/v1/assets/${created.id}/upload-url`, { method: 'POST', headers, body: '{"filename":"a.zip"}' })).json();
    assert.ok(issued.signed_url.startsWith(`${url}/market/api/v1/blobs/`), issued.signed_url);
    assert.equal((await fetch(issued.signed_url, { method: 'PUT', body: 'bytes' })).status, 200);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('serve() listens, reports its URL and closes', async () => {
  const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
  const running = await serve(marketplace, { port: 0 });
  assert.match(running.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal((await fetch(`${running.url}/api/v1/health`)).status, 200);
  await running.close();
  await assert.rejects(fetch(`${running.url}/api/v1/health`));
});

test('createMarketplace says what to change when given bad options', () => {
  assert.throws(() => createMarketplace({ storage: {} as never, blobs: memoryBlobs() }), /marketkit createMarketplace: .*storage must be a storage adapter/);
  assert.throws(
    () => createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), signingSecret: 'short' }),
    /signingSecret must be at least 32 bytes/,
  );
  assert.throws(() => createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), siteUrl: 'ftp://x' }), /siteUrl/);
});
