/**
 * The WHATWG fetch handler as a host calls it: with Requests made in process, as Hono, a Next.js
 * route handler or a Workers-style platform hands them over.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import { fetchHandler } from '../../bindings/fetch/index.js';
import { createMarketplace } from '../../core/index.js';

async function market() {
  // shop.example is the host the embedding app serves: issued URLs may be built on it (docs/security.md).
  const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), allowedHosts: ['shop.example'] });
  const seller = await marketplace.admin.createAccount({ username: 'fetch-seller', seller_status: 'approved' });
  const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 't' });
  return { marketplace, token };
}

test('mounted on a prefix, it serves paths with the prefix (app.all) and without it (Hono mount), and the URLs it issues carry it', async () => {
  const { marketplace, token } = await market();
  const handle = fetchHandler(marketplace, { basePath: '/market' });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', host: 'shop.example' };
  const created = await handle(new Request('http://shop.example/market/api/v1/assets', { method: 'POST', headers, body: JSON.stringify({ title: 'Prefixed', slug: 'prefixed' }) }));
  assert.equal(created.status, 201);
  const { id } = await created.json();
  // As Hono's mount() hands it on: the prefix already taken off the path.
  const issued = await handle(new Request(`http://shop.example/api/v1/assets/${id}/upload-url`, { method: 'POST', headers, body: '{"filename":"a.zip"}' }));
  assert.equal(issued.status, 200);
  const { signed_url } = await issued.json();
  assert.ok(signed_url.startsWith('http://shop.example/market/api/v1/blobs/'), signed_url);
  const put = await handle(new Request(signed_url, { method: 'PUT', body: 'zip bytes' }));
  assert.equal(put.status, 200);
});

test('issued URLs take their host from the Host header, not from a Request URL built from an absolute-form target', async () => {
  const { marketplace, token } = await market();
  const handle = fetchHandler(marketplace);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', host: '127.0.0.1:8787' };
  const created = await (await handle(new Request('http://evil.example/api/v1/assets', { method: 'POST', headers, body: JSON.stringify({ title: 'Hosted', slug: 'hosted' }) }))).json();
  const issued = await (await handle(new Request(`http://evil.example/api/v1/assets/${created.id}/upload-url`, { method: 'POST', headers, body: '{"filename":"a.zip"}' }))).json();
  assert.ok(issued.signed_url.startsWith('http://127.0.0.1:8787/api/v1/blobs/'), issued.signed_url);
});

test('with the loopback option, MCP refuses a Host that is not a loopback name; without it only the Origin is checked', async () => {
  const { marketplace } = await market();
  const ping = () =>
    new Request('http://127.0.0.1:8787/api/mcp', {
      method: 'POST',
      headers: { host: 'evil.example:8787', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
  assert.equal((await fetchHandler(marketplace, { loopback: () => true })(ping())).status, 403);
  assert.equal((await fetchHandler(marketplace)(ping())).status, 200);
});

test('maxHeaderBytes refuses a larger request head with a bodiless 431; without it the host’s own limit applies', async () => {
  const { marketplace } = await market();
  const request = () => new Request('http://127.0.0.1/api/v1/health', { headers: { 'x-padding': 'a'.repeat(20_000) } });
  const refused = await fetchHandler(marketplace, { maxHeaderBytes: 16 * 1024 })(request());
  assert.equal(refused.status, 431);
  assert.equal(await refused.text(), '');
  assert.equal((await fetchHandler(marketplace)(request())).status, 200);
});
