/**
 * Passkeys in a real browser (Debian's Chromium through playwright-core, with Chromium's virtual
 * authenticator over CDP: it makes and uses credentials with no prompt), at `localhost` (WebAuthn
 * refuses an IP as the relying party): a seller signs in with a link, adds a named passkey, signs
 * out, signs in with the passkey (no username), sees it listed with its last use, and removes it;
 * a new passkey the dashboard then refuses is signalled unknown to the browser.
 * Then over HTTP: the sign-in's answer replayed is refused (its challenge is used up), another
 * account cannot remove the passkey, a JSON POST from another origin is refused, and failed
 * sign-ins (passkeys and sign-in links) from one address are held to the failed-authentication
 * budget (429 with Retry-After). Self sign-up (dashboard.selfSignUp): a username and a passkey make
 * a pending account, signed in, that signs in again with the passkey; a taken username is 409 (when
 * taken between the options and the verify, the passkey the browser made is signalled unknown and
 * the virtual authenticator drops it); a sign-up's challenge serves only its username; with the
 * option off, its routes are 404.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { type Browser } from 'playwright-core';
import { launchChromium } from '../fixtures/dashboard.js';
import { needs } from '../fixtures/parts.js';
import { startServerOn, stopStores } from '../fixtures/stores.js';
import type { TestServer } from '../fixtures/server.js';

const { test } = needs('chromium');
const serviceKey = 'dashboard-passkeys-key-0123456789abcdef0123';
let server: TestServer;
let browser: Browser;

before(async () => {
  server = await startServerOn('memory', { serviceKey, dashboard: {} });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
  await stopStores();
});

/** A sign-in link for the account, at the server's port (the link names localhost). */
async function linkFor(on: TestServer, account: string): Promise<URL> {
  const res = await fetch(`${on.url}/api/admin/accounts/${account}/login-link`, { method: 'POST', headers: { authorization: `Bearer ${serviceKey}`, 'content-type': 'application/json' }, body: '{}' });
  const link = new URL((await res.json()).url);
  link.port = new URL(on.url).port;
  return link;
}

/** Signs the account in with a link over HTTP: its cookie and form token. */
async function signedIn(on: TestServer, account: string) {
  const link = await linkFor(on, account);
  const res = await fetch(`${on.url}${link.pathname}`, { method: 'POST', headers: { origin: link.origin }, redirect: 'manual' });
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const page = await (await fetch(`${on.url}/dashboard/passkeys`, { headers: { cookie } })).text();
  return { cookie, formToken: /data-form-token="([^"]+)"/.exec(page)![1]!, origin: link.origin };
}

test('passkeys: add one named, sign out, sign in with it, see its last use, remove it; a replay, another account and another origin refused', { timeout: 120_000 }, async () => {
  const link = await linkFor(server, server.seller.id);
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', { options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true } });

  await page.goto(link.href);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${link.origin}/dashboard/`);
  await page.getByRole('link', { name: 'Passkeys' }).click();
  await page.getByText('No passkeys yet.').waitFor();
  await page.getByLabel('Name').fill('Laptop “work”');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  const row = page.getByRole('row', { name: /Laptop “work”/ });
  await row.waitFor();
  assert.match(await row.innerText(), /never/, 'not used yet');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${link.origin}/dashboard/sign-in`);
  const verified = page.waitForRequest((request) => request.url().endsWith('/sign-in/passkey/verify'));
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.waitForURL(`${link.origin}/dashboard/`);
  const answer = (await verified).postData()!;
  await page.getByRole('link', { name: 'Passkeys' }).click();
  assert.doesNotMatch(await page.getByRole('row', { name: /Laptop “work”/ }).innerText(), /never/, 'its last use is shown');
  const id = /\/passkeys\/([^/]+)\/remove/.exec(await page.content())![1]!;

  // The sign-in's answer sent again: its challenge is used up.
  const replay = await fetch(`${server.url}/dashboard/sign-in/passkey/verify`, { method: 'POST', headers: { origin: link.origin, 'content-type': 'application/json' }, body: answer });
  assert.equal(replay.status, 401);
  assert.match((await replay.json()).error.message, /expired or was already answered/);
  // Another account's session cannot remove it.
  const other = await signedIn(server, server.other.id);
  const removed = await fetch(`${server.url}/dashboard/passkeys/${id}/remove`, { method: 'POST', headers: { cookie: other.cookie, origin: other.origin, 'content-type': 'application/x-www-form-urlencoded' }, body: `form_token=${other.formToken}`, redirect: 'manual' });
  assert.equal(removed.status, 404);
  // A JSON POST from another origin, signed in or not.
  const foreign = await fetch(`${server.url}/dashboard/passkeys/options`, { method: 'POST', headers: { cookie: other.cookie, origin: 'https://evil.example', 'x-form-token': other.formToken, 'content-type': 'application/json' }, body: '{}' });
  assert.equal(foreign.status, 403);
  const foreignSignIn = await fetch(`${server.url}/dashboard/sign-in/passkey/options`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{}' });
  assert.equal(foreignSignIn.status, 403);
  assert.match((await foreignSignIn.json()).error.message, /another site/);

  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('row', { name: /Laptop “work”/ }).getByRole('button', { name: 'Remove' }).click();
  await page.getByText('No passkeys yet.').waitFor();
  // With none left (the authenticator's own passkey would be excluded), a new one the dashboard
  // refuses (a name over 100 characters, past the field's own limit): the one the browser just
  // made is signalled unknown, and none is listed. (Making it replaces the authenticator's earlier
  // passkey for this account, a deletion of its own: the new one must be among those deleted.)
  const deleted: string[] = [];
  cdp.on('WebAuthn.credentialDeleted', (event: { credentialId: string }) => void deleted.push(event.credentialId));
  const added = new Promise<string>((resolve) => cdp.on('WebAuthn.credentialAdded', (event: { credential: { credentialId: string } }) => resolve(event.credential.credentialId)));
  await page.getByLabel('Name').evaluate((input: HTMLInputElement) => {
    input.removeAttribute('maxlength');
    input.value = 'x'.repeat(101);
  });
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByText(/The passkey was not added: Give the passkey a name of 1 to 100 characters/).waitFor();
  const made = await added;
  for (let waited = 0; waited < 5000 && !deleted.includes(made); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(deleted.includes(made), `the refused passkey is one the browser was told to forget (WebAuthn.credentialDeleted: ${deleted.join(', ') || 'none'})`);
  await page.getByText('No passkeys yet.').waitFor();
  assert.deepEqual(problems.filter((text) => !/400/.test(text)), [], 'no script error and no Content-Security-Policy violation');
  await context.close();
});

test('failed sign-ins from one address, by passkey or by link, are held to the failed-authentication budget: 429 with Retry-After', async () => {
  const limited = await startServerOn('memory', { serviceKey, dashboard: {}, rateLimits: { failedAuth: { limit: 3, windowSeconds: 60 } } });
  try {
    const origin = new URL(limited.url).origin;
    const link = await linkFor(limited, limited.seller.id);
    const send = (path: string, body?: string) =>
      fetch(`${limited.url}/dashboard${path}`, { method: 'POST', headers: { origin, ...(body ? { 'content-type': 'application/json' } : {}) }, body, redirect: 'manual' });
    const options = await (await send('/sign-in/passkey/options', '{}')).json();
    const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin })).toString('base64url');
    const unknown = { credential: { id: 'bm90LWEtcGFzc2tleQ', rawId: 'bm90LWEtcGFzc2tleQ', type: 'public-key', response: { clientDataJSON: clientData, authenticatorData: 'AA', signature: 'AA' } } };
    const first = await send('/sign-in/passkey/verify', JSON.stringify(unknown));
    assert.equal(first.status, 401);
    assert.match((await first.json()).error.message, /not enrolled here/);
    assert.equal((await send('/sign-in/passkey/verify', JSON.stringify(unknown))).status, 401, 'its challenge used up: a failure too');
    assert.equal((await send('/sign-in/passkey/verify', '{"credential": 1}')).status, 400, 'a malformed body is no guess: not charged');
    assert.equal((await send(`/sign-in/${'x'.repeat(43)}`)).status, 410, 'an unknown sign-in link');
    const refused = await send(`/sign-in/${'y'.repeat(43)}`);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal((await send('/sign-in/passkey/verify', JSON.stringify(unknown))).status, 429, 'passkeys too, once the budget is spent');
    // A good link is not looked at either until the budget has room again.
    assert.equal((await send(link.pathname.replace(/^\/dashboard/, ''))).status, 429);
    await limited.clock.advance(61_000);
    assert.equal((await send(link.pathname.replace(/^\/dashboard/, ''))).status, 303, 'signed in once the window passed');
  } finally {
    await limited.close();
  }
});

test('self sign-up: a username and a passkey make a pending account, signed in; it signs in again with the passkey; a taken username is 409; a challenge serves its username only; off, 404', { timeout: 60_000 }, async () => {
  const open = await startServerOn('memory', { serviceKey, dashboard: { selfSignUp: true } });
  try {
    const origin = `http://localhost:${new URL(open.url).port}`;
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => message.type() === 'error' && !/409/.test(message.text()) && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', { options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true } });
    const pending = page.getByText('Your seller account waits for an operator’s approval');

    await page.goto(`${origin}/dashboard/sign-in`);
    await page.getByRole('link', { name: 'Create one with a passkey' }).click();
    await page.getByLabel('Username').fill('newcomer');
    await page.getByRole('button', { name: 'Create account with a passkey' }).click();
    await page.waitForURL(`${origin}/dashboard/`);
    await pending.waitFor();
    assert.match(await page.locator('header').innerText(), /newcomer/);
    const account = await (await fetch(`${open.url}/api/admin/accounts/newcomer`, { headers: { authorization: `Bearer ${serviceKey}` } })).json();
    assert.equal(account.seller_status, 'pending');

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${origin}/dashboard/`);
    await pending.waitFor();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();

    await page.goto(`${origin}/dashboard/sign-up`);
    await page.getByLabel('Username').fill('newcomer');
    const refused = page.waitForResponse((response) => response.url().endsWith('/sign-up/options'));
    await page.getByRole('button', { name: 'Create account with a passkey' }).click();
    assert.equal((await refused).status(), 409);
    await page.getByText('The username “newcomer” is taken: choose another.').waitFor();

    // Taken between the options and the verify (an operator makes the account meanwhile): refused,
    // and the passkey the browser just made is signalled unknown, so the authenticator drops it.
    const deleted = new Promise<string>((resolve) => cdp.on('WebAuthn.credentialDeleted', (event: { credentialId: string }) => resolve(event.credentialId)));
    const added = new Promise<string>((resolve) => cdp.on('WebAuthn.credentialAdded', (event: { credential: { credentialId: string } }) => resolve(event.credential.credentialId)));
    await page.route('**/dashboard/sign-up/verify', async (route) => {
      assert.equal((await fetch(`${open.url}/api/admin/accounts`, { method: 'POST', headers: { authorization: `Bearer ${serviceKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'racer' }) })).status, 200);
      await route.continue();
    });
    await page.getByLabel('Username').fill('racer');
    await page.getByRole('button', { name: 'Create account with a passkey' }).click();
    await page.getByText('The account was not made: The username “racer” is taken: choose another.').waitFor();
    const forgotten = await Promise.race([deleted, new Promise<null>((resolve) => setTimeout(resolve, 5000, null))]);
    assert.equal(forgotten, await added, 'the passkey made for the refused sign-up is the one the browser was told to forget (WebAuthn.credentialDeleted)');
    await page.unroute('**/dashboard/sign-up/verify');
    assert.deepEqual(problems, [], 'no script error and no Content-Security-Policy violation');
    await context.close();

    // Over HTTP: a challenge handed out for one username does not verify another's sign-up (and is not used up by it).
    const send = (path: string, body: unknown) => fetch(`${open.url}/dashboard/sign-up/${path}`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const options = await (await send('options', { username: 'alpha' })).json();
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin })).toString('base64url');
    const credential = { id: 'bm90LWEtcGFzc2tleQ', rawId: 'bm90LWEtcGFzc2tleQ', type: 'public-key', response: { clientDataJSON, attestationObject: 'oA' } };
    const other = await send('verify', { username: 'beta', credential });
    assert.equal(other.status, 401);
    assert.match((await other.json()).error.message, /expired or was already answered/);
    assert.equal((await send('verify', { username: 'alpha', credential })).status, 400, 'its own username finds the challenge (the attestation is no passkey)');
    assert.equal((await fetch(`${open.url}/api/admin/accounts/beta`, { headers: { authorization: `Bearer ${serviceKey}` } })).status, 404);
  } finally {
    await open.close();
  }
  // Off (the default): no sign-up page, no routes, no link.
  assert.equal((await fetch(`${server.url}/dashboard/sign-up`)).status, 404);
  for (const path of ['options', 'verify']) assert.equal((await fetch(`${server.url}/dashboard/sign-up/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 404);
  assert.doesNotMatch(await (await fetch(`${server.url}/dashboard/sign-in`)).text(), /sign-up/);
  // With the application's own sign-in, the application makes its accounts: no sign-up either.
  const embedded = await startServerOn('memory', { dashboard: { selfSignUp: true, authenticate: async () => null } });
  try {
    assert.equal((await fetch(`${embedded.url}/dashboard/sign-up`)).status, 404);
  } finally {
    await embedded.close();
  }
});
