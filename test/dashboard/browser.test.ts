/**
 * The dashboard in a real browser (Debian's Chromium, driven by playwright-core): a seller opens a
 * sign-in link at `localhost` (the address the dashboard gives for a loopback listen: passkeys refuse
 * an IP), presses Continue, makes a developer token, copies it, stores it, and revokes it after a
 * confirmation; the page's own script and styles load under its Content-Security-Policy (no
 * violation reported), and the token works on the API until revoked.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { needs, partPath } from '../fixtures/parts.js';
import { startServerOn, stopStores } from '../fixtures/stores.js';
import type { TestServer } from '../fixtures/server.js';

const { test } = needs('chromium');
const serviceKey = 'dashboard-browser-key-0123456789abcdef0123';
let server: TestServer;
let browser: Browser;

before(async () => {
  server = await startServerOn('memory', { serviceKey, dashboard: {} });
  browser = await chromium.launch({ executablePath: partPath('chromium'), args: ['--no-sandbox'] });
});
after(async () => {
  await browser?.close();
  await server?.close();
  await stopStores();
});

test('sign in with a link, make a token, copy it, revoke it: in Chromium, at localhost', { timeout: 120_000 }, async () => {
  const res = await fetch(`${server.url}/api/admin/accounts/${server.seller.id}/login-link`, { method: 'POST', headers: { authorization: `Bearer ${serviceKey}`, 'content-type': 'application/json' }, body: '{}' });
  const { url } = await res.json();
  const link = new URL(url);
  assert.equal(link.hostname, 'localhost', 'the link names a host, not an IP');
  link.port = new URL(server.url).port;

  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: link.origin });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));

  await page.goto(link.href);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${link.origin}/dashboard/`);
  await page.getByRole('link', { name: 'Tokens' }).first().click();
  await page.getByLabel('Name').fill('CI runner');
  await page.getByLabel('tokens:read').check();
  await page.getByRole('button', { name: 'Create token' }).click();
  const shown = await page.getByLabel('The new token').inputValue();
  assert.match(shown, /^smcp_/);
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByRole('button', { name: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), shown, 'the Copy button put the token on the clipboard');
  assert.equal((await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${shown}` } })).status, 200);

  await page.getByRole('link', { name: 'I have stored it' }).click();
  const row = page.getByRole('row', { name: /CI runner/ });
  await row.waitFor();
  assert.ok(!(await page.content()).includes(shown), 'the list never shows the token again');
  page.once('dialog', (dialog) => void dialog.accept());
  await row.getByRole('button', { name: 'Revoke' }).click();
  await page.waitForURL(`${link.origin}/dashboard/tokens`);
  await page.getByText('No tokens yet.').or(page.getByRole('table')).first().waitFor();
  assert.equal(await page.getByRole('row', { name: /CI runner/ }).count(), 0);
  assert.equal((await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${shown}` } })).status, 401, 'revoked on the page: refused by the API');
  assert.deepEqual(problems, [], 'no script error and no Content-Security-Policy violation');
  await context.close();
});
