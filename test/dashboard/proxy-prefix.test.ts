/**
 * The dashboard mounted under a prefix behind a real load balancer (docs/dashboard.md, "Turning it
 * on"): an application serves the marketplace at /market (the Node binding's basePath, its router
 * stripping the prefix), and haproxy (Debian's, the configuration docs/deploy.md shows) forwards to
 * it. A sign-in link the admin API makes through the proxy names the proxy's address under the
 * prefix; it signs in; the cookie's Path and every link and form of the pages carry the prefix; a
 * form from the proxy's own origin is accepted and one from another refused.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import { nodeListener } from '../../bindings/node/index.js';
import { createMarketplace } from '../../core/index.js';
import { browser, dashboardServiceKey, formTokenOf } from '../fixtures/dashboard.js';
import { startHaproxy } from '../fixtures/haproxy.js';
import { needs } from '../fixtures/parts.js';

const parts = needs('haproxy');

parts.test('under /market behind haproxy: the link, the cookie, the links and the forms carry the prefix', async (t) => {
  const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), serviceKey: dashboardServiceKey, dashboard: {} });
  const seller = await marketplace.admin.createAccount({ username: 'prefixed-seller' });
  const listener = nodeListener(marketplace, { basePath: '/market' });
  // The application's router: the marketplace at /market (the prefix taken off), its readiness for the balancer at the root.
  const app = createServer((req, res) => {
    if (req.url?.startsWith('/market/')) {
      req.url = req.url.slice('/market'.length);
      listener(req, res);
    } else if (req.url === '/readyz') listener(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    app.closeAllConnections();
    app.close();
  });
  const proxy = await startHaproxy([`127.0.0.1:${(app.address() as AddressInfo).port}`]);
  t.after(() => proxy.stop());
  await proxy.allUp(10_000);

  const issued = await fetch(`${proxy.url}/market/api/admin/accounts/${seller.id}/login-link`, { method: 'POST', headers: { authorization: `Bearer ${dashboardServiceKey}`, 'content-type': 'application/json' }, body: '{}' });
  const { url } = (await issued.json()) as { url: string };
  assert.match(url, new RegExp(`^http://localhost:${proxy.port}/market/dashboard/sign-in/[A-Za-z0-9_-]{43}$`), 'the proxy’s address as localhost, under the prefix');

  const b = browser({ url: `http://localhost:${proxy.port}` });
  const link = new URL(url).pathname;
  assert.match((await b.send('GET', link)).text, new RegExp(`<form method="post" action="${link}">`));
  const signedIn = await b.send('POST', link);
  assert.deepEqual([signedIn.status, signedIn.location], [303, '/market/dashboard/']);
  assert.match(signedIn.cookie ?? '', /; Path=\/market\/dashboard; HttpOnly; SameSite=Lax/);

  const tokens = await b.send('GET', '/market/dashboard/tokens');
  assert.equal(tokens.status, 200);
  const paths = [...tokens.text.matchAll(/(?:href|action|src)="(\/[^"]*)"/g)].map((m) => m[1]!);
  assert.ok(paths.length > 5);
  assert.deepEqual(paths.filter((path) => !path.startsWith('/market/dashboard/') && path !== '/market/dashboard'), [], 'every link, form and script under the prefix');
  const form = { form_token: formTokenOf(tokens.text), name: 'behind the proxy', scopes: ['profile:read'], expires_in_days: '30' };
  const made = await b.send('POST', '/market/dashboard/tokens', { form });
  assert.equal(made.status, 200);
  const token = /value="(smcp_[^"]+)"/.exec(made.text)?.[1];
  assert.equal((await fetch(`${proxy.url}/market/api/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status, 200, 'the token works through the proxy');
  const forged = await b.send('POST', '/market/dashboard/tokens', { form, headers: { origin: 'http://evil.example' } });
  assert.equal(forged.status, 403, 'a form from another site');
});
