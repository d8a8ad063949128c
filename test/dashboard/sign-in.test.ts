/**
 * The dashboard's sign-in and sessions, over HTTP as a browser sends it (docs/dashboard.md,
 * "Signing in"): a one-time link whose GET uses nothing up and whose POST signs in once; the
 * session cookie's attributes; idle and absolute expiry; sign out, and sign out everywhere; every
 * unsafe request refused without the site's Origin (or Sec-Fetch-Site) and the form token; a
 * session is never an API credential and a token never opens a page; a token made on the tokens page
 * works on REST and MCP at once and stops on both at once when revoked there. On memory and SQLite storage.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startServerOn, stopStores, type StoreName } from '../fixtures/stores.js';
import { browser, dashboardServiceKey, formTokenOf, loginLink } from '../fixtures/dashboard.js';
import { callTool } from '../fixtures/mcp.js';

const serviceKey = dashboardServiceKey;
after(stopStores);

for (const store of ['memory', 'sqlite'] as StoreName[]) {
  describe(`dashboard sign-in on ${store}`, () => {
    test('a link: GET shows Continue and uses nothing up; the POST signs in once; the cookie is HttpOnly, SameSite=Lax, on the base path', async () => {
      const server = await startServerOn(store, { serviceKey, dashboard: {} });
      try {
        const path = await loginLink(server, server.seller.id);
        assert.match(path, /^\/dashboard\/sign-in\/[A-Za-z0-9_-]{43}$/);
        const b = browser(server);
        for (let i = 0; i < 2; i++) {
          const shown = await b.send('GET', path);
          assert.equal(shown.status, 200);
          assert.match(shown.text, /<button type="submit"[^>]*>Continue<\/button>/);
          assert.equal(shown.cookie, null, 'a GET signs nobody in');
          assert.match(shown.headers.get('content-security-policy') ?? '', /script-src 'self'/);
          assert.equal(shown.headers.get('referrer-policy'), 'no-referrer', 'the link never leaves in a Referer');
        }
        const signedIn = await b.send('POST', path);
        assert.deepEqual([signedIn.status, signedIn.headers.get('location')], [303, '/dashboard/']);
        assert.match(signedIn.cookie ?? '', /^marketkit_dashboard=[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
        const home = await b.send('GET', '/dashboard/');
        assert.equal(home.status, 200);
        assert.match(home.text, /Signed in as <strong>/);

        const again = browser(server);
        const reused = await again.send('POST', path);
        assert.deepEqual([reused.status, reused.cookie], [410, null], 'a link works once');
        assert.match(reused.text, /used or has expired/);
        assert.equal((await again.send('GET', '/dashboard/tokens')).headers.get('location'), '/dashboard/sign-in', 'signed out: to the sign-in page');
      } finally {
        await server.close();
      }
    });

    test('a link expires after 15 minutes; a session after 12 idle hours and after 7 days however active', async () => {
      const server = await startServerOn(store, { serviceKey, dashboard: {} });
      try {
        const late = await loginLink(server, server.seller.id);
        server.clock.advance(15 * 60 * 1000);
        assert.equal((await browser(server).send('POST', late)).status, 410);

        const b = browser(server);
        await b.send('POST', await loginLink(server, server.seller.id));
        server.clock.advance(11 * 3600 * 1000);
        assert.equal((await b.send('GET', '/dashboard/')).status, 200, 'within the idle time');
        server.clock.advance(11 * 3600 * 1000);
        assert.equal((await b.send('GET', '/dashboard/')).status, 200, 'the last request renewed it');
        server.clock.advance(12 * 3600 * 1000 + 1000);
        assert.equal((await b.send('GET', '/dashboard/')).status, 303, 'idle 12 hours: ended');

        const busy = browser(server);
        await busy.send('POST', await loginLink(server, server.seller.id));
        for (let hour = 0; hour < 7 * 24; hour += 6) {
          assert.equal((await busy.send('GET', '/dashboard/')).status, 200);
          server.clock.advance(6 * 3600 * 1000);
        }
        assert.equal((await busy.send('GET', '/dashboard/')).status, 303, '7 days after signing in: ended, however active');
      } finally {
        await server.close();
      }
    });

    test('unsafe requests need the site’s Origin (or Sec-Fetch-Site) and the form token; sign out, and sign out everywhere', async () => {
      const server = await startServerOn(store, { serviceKey, dashboard: {} });
      try {
        const foreign = browser(server);
        const link = await loginLink(server, server.seller.id);
        const cross = await foreign.send('POST', link, { headers: { origin: 'https://evil.example' } });
        assert.deepEqual([cross.status, cross.cookie], [403, null], 'a link posted from another site signs nobody in');
        assert.equal((await foreign.send('POST', link)).status, 303, 'and the link was not used up by it');

        const b = browser(server);
        await b.send('POST', await loginLink(server, server.seller.id));
        const page = (await b.send('GET', '/dashboard/tokens')).text;
        const token = formTokenOf(page);
        assert.ok(token, 'every form carries the form token');
        const create = { name: 'ci', scopes: 'assets:read', expires_in_days: '30', form_token: token };
        assert.equal((await b.send('POST', '/dashboard/tokens', { form: create, headers: { origin: 'https://evil.example' } })).status, 403, 'another site');
        assert.equal((await b.send('POST', '/dashboard/tokens', { form: { ...create, form_token: 'x'.repeat(43) } })).status, 403, 'a wrong form token');
        const { form_token: _, ...without } = create;
        assert.equal((await b.send('POST', '/dashboard/tokens', { form: without })).status, 403, 'no form token');
        const noOrigin = await fetch(`${server.url}/dashboard/tokens`, { method: 'POST', headers: { cookie: [...b.jar].map(([n, v]) => `${n}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(create).toString(), redirect: 'manual' });
        assert.equal(noOrigin.status, 403, 'neither Origin nor Sec-Fetch-Site');
        const sameSite = await fetch(`${server.url}/dashboard/tokens`, { method: 'POST', headers: { cookie: [...b.jar].map(([n, v]) => `${n}=${v}`).join('; '), 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(create).toString(), redirect: 'manual' });
        assert.equal(sameSite.status, 200, 'Sec-Fetch-Site same-origin without Origin');
        // A page served with Referrer-Policy: no-referrer sends `Origin: null`: Sec-Fetch-Site decides.
        const nullOrigin = (site: string) => fetch(`${server.url}/dashboard/tokens`, { method: 'POST', headers: { cookie: [...b.jar].map(([n, v]) => `${n}=${v}`).join('; '), origin: 'null', 'sec-fetch-site': site, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(create).toString(), redirect: 'manual' });
        assert.deepEqual([(await nullOrigin('same-origin')).status, (await nullOrigin('cross-site')).status], [200, 403]);

        const other = browser(server);
        await other.send('POST', await loginLink(server, server.seller.id));
        const out = await b.send('POST', '/dashboard/sign-out', { form: { form_token: token } });
        assert.deepEqual([out.status, out.headers.get('location'), /Max-Age=0/.test(out.cookie ?? '')], [303, '/dashboard/sign-in', true]);
        assert.equal((await other.send('GET', '/dashboard/')).status, 200, 'signing out ends this session only');
        const third = browser(server);
        await third.send('POST', await loginLink(server, server.seller.id));
        await other.send('POST', '/dashboard/sign-out', { form: { form_token: formTokenOf((await other.send('GET', '/dashboard/')).text), everywhere: '1' } });
        assert.equal((await third.send('GET', '/dashboard/')).status, 303, 'sign out everywhere ends every session of the account');
      } finally {
        await server.close();
      }
    });

    test('tokens made on the page are ordinary developer tokens; a session never authorizes the API and a token never opens a page', async () => {
      const server = await startServerOn(store, { serviceKey, dashboard: {} });
      try {
        const b = browser(server);
        await b.send('POST', await loginLink(server, server.seller.id));
        const form_token = formTokenOf((await b.send('GET', '/dashboard/tokens')).text);
        const made = await b.send('POST', '/dashboard/tokens', { form: { name: 'My <laptop>', scopes: ['profile:read', 'tokens:read'], expires_in_days: '30', form_token } });
        assert.equal(made.status, 200);
        assert.equal(made.headers.get('cache-control'), 'no-store');
        assert.match(made.text, /My &lt;laptop&gt;/, 'escaped');
        const secret = /value="(smcp_[A-Za-z0-9]+)"/.exec(made.text)?.[1];
        assert.ok(secret, 'shown once');
        const api = await fetch(`${server.url}/api/v1/tokens`, { headers: { authorization: `Bearer ${secret}` } });
        const listed = await api.json();
        assert.equal(api.status, 200);
        const mine = listed.data.find((t: { name: string }) => t.name === 'My <laptop>');
        assert.deepEqual([mine.scopes, secret.startsWith(mine.prefix), typeof mine.expires_at], [['profile:read', 'tokens:read'], true, 'string']);
        // And on MCP at once, the same token.
        const viaMcp = await callTool(server, secret, 'get_my_profile');
        assert.equal(viaMcp.status, 200);
        assert.equal(viaMcp.body.result.isError, undefined, JSON.stringify(viaMcp.body));
        assert.equal(viaMcp.body.result.structuredContent.username, (await (await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${secret}` } })).json()).username);
        const list = (await b.send('GET', '/dashboard/tokens')).text;
        assert.ok(!list.includes(secret), 'the list shows the prefix only');

        const cookie = [...b.jar].map(([n, v]) => `${n}=${v}`).join('; ');
        assert.equal((await fetch(`${server.url}/api/v1/me`, { headers: { cookie } })).status, 401, 'a session cookie is no API credential');
        const [, value] = [...b.jar][0]!;
        assert.equal((await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${value}` } })).status, 401, 'nor its secret as a bearer');
        assert.equal((await fetch(`${server.url}/dashboard/tokens`, { headers: { authorization: `Bearer ${secret}` }, redirect: 'manual' })).status, 303, 'a token opens no page');

        const revoked = await b.send('POST', `/dashboard/tokens/${mine.id}/revoke`, { form: { form_token } });
        assert.deepEqual([revoked.status, revoked.headers.get('location')], [303, '/dashboard/tokens']);
        assert.equal((await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${secret}` } })).status, 401, 'revoked: refused at once');
        assert.equal((await callTool(server, secret, 'get_my_profile')).status, 401, 'on MCP too');
        const notMine = await b.send('POST', `/dashboard/tokens/${server.other.tokenId}/revoke`, { form: { form_token } });
        assert.equal(notMine.status, 404, 'another account’s token is not found');
        assert.equal((await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${server.other.token}` } })).status, 200);
      } finally {
        await server.close();
      }
    });
  });
}

test('the application’s own sign-in (dashboard.authenticate): it names the account on every request; no links, passkeys or sign-out of the dashboard’s own', async () => {
  const usernames = new Map<string, string>();
  let failing = false;
  const heard: unknown[] = [];
  const server = await startServerOn('memory', {
    serviceKey,
    onError: (error) => void heard.push(error),
    dashboard: {
      signInUrl: '/login',
      // The application's session: a cookie `app` whose value names the user.
      authenticate: (request) => {
        if (failing) throw new Error('the identity provider is down');
        const app = /(?:^|; )app=([^;]+)/.exec(request.header('cookie') ?? '')?.[1];
        return app ? (usernames.get(app) ?? null) : null;
      },
    },
  });
  try {
    const me = async (token: string) => (await (await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } })).json()).username as string;
    usernames.set('s1', await me(server.seller.token));
    usernames.set('s2', await me(server.other.token));
    const b = browser(server);
    assert.equal((await b.send('GET', '/dashboard/tokens')).location, '/dashboard/sign-in', 'nobody signed in to the application');
    assert.equal((await b.send('GET', '/dashboard/sign-in')).location, '/login', 'sent to the application’s sign-in');
    for (const path of [`/dashboard/sign-in/${'a'.repeat(43)}`, '/dashboard/passkeys', '/dashboard/sign-out']) assert.equal((await b.send('GET', path)).status, 404, path);

    b.jar.set('app', 's1');
    const page = await b.send('GET', '/dashboard/tokens');
    assert.equal(page.status, 200);
    assert.match(page.cookie ?? '', /^marketkit_dashboard=[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Lax/, 'the dashboard’s own session, for its form token');
    assert.ok(page.text.includes(`<span class="sign-out">${usernames.get('s1')}</span>`), 'who is signed in; no sign-out button of the dashboard’s');
    assert.doesNotMatch(page.text, /Passkeys|>Sign out</);
    const form_token = formTokenOf(page.text);
    const made = await b.send('POST', '/dashboard/tokens', { form: { form_token, name: 'embedded', scopes: ['profile:read'], expires_in_days: '30' } });
    const secret = /value="(smcp_[A-Za-z0-9]+)"/.exec(made.text)?.[1];
    assert.equal(await me(secret!), usernames.get('s1'), 'a token of the account the application named');

    b.jar.set('app', 's2');
    const other = await b.send('GET', '/dashboard/tokens');
    assert.ok(other.text.includes(`<span class="sign-out">${usernames.get('s2')}</span>`), 'the application now names another account');
    assert.equal((await b.send('POST', '/dashboard/tokens', { form: { form_token, name: 'stale', scopes: ['profile:read'] } })).status, 403, 'the first account’s form token does not act for the second');

    b.jar.delete('app');
    const out = await b.send('GET', '/dashboard/tokens');
    assert.deepEqual([out.location, /Max-Age=0/.test(out.cookie ?? '')], ['/dashboard/sign-in', true], 'signed out of the application: out of the dashboard, its cookie cleared');

    b.jar.set('app', 's1');
    failing = true;
    assert.equal((await b.send('GET', '/dashboard/tokens')).status, 500, 'an authenticate that throws is the application’s failure');
    assert.match(String(heard[0]), /the identity provider is down/, 'and onError hears it');
  } finally {
    await server.close();
  }
});

test('admin.createSignInLink makes the link in code for an embedding application, and says what is wrong without a dashboard, a site URL or the account', async () => {
  const { createMarketplace, ConfigurationError } = await import('../../core/index.js');
  const { memoryBlobs, memoryStorage } = await import('../../adapters/memory/index.js');
  const without = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
  const made = await without.admin.createAccount({ username: 'no-dashboard' });
  await assert.rejects(without.admin.createSignInLink({ accountId: made.id, siteUrl: 'http://localhost:1' }), (error: Error) => error instanceof ConfigurationError && /serves no dashboard/.test(error.message));

  const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), dashboard: {} });
  const seller = await marketplace.admin.createAccount({ username: 'linked' });
  await assert.rejects(marketplace.admin.createSignInLink({ accountId: seller.id }), (error: Error) => error instanceof ConfigurationError && /siteUrl/.test(error.message));
  await assert.rejects(marketplace.admin.createSignInLink({ accountId: 'no-such-account', siteUrl: 'http://localhost:1' }), (error: Error) => error instanceof ConfigurationError && /no account/.test(error.message));
  const { url } = await marketplace.admin.createSignInLink({ accountId: seller.id, siteUrl: 'http://127.0.0.1:8080/market' });
  assert.match(url, /^http:\/\/localhost:8080\/market\/dashboard\/sign-in\/[A-Za-z0-9_-]{43}$/, 'localhost for a loopback address, under the mount');
  // The link signs in through the marketplace's own handler, once.
  const path = new URL(url).pathname.slice('/market'.length);
  const post = () => marketplace.fetch(new Request(`http://localhost:8080${path}`, { method: 'POST', headers: { origin: 'http://localhost:8080' } }));
  assert.equal((await post()).status, 303);
  assert.equal((await post()).status, 410, 'used up');
});
