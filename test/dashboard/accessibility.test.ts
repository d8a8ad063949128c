/**
 * The dashboard's accessibility in a real browser (Debian's Chromium through playwright-core, one
 * launch for the file): every GET page of the route table, opened signed in as the role that sees it
 * (a seller, a moderator, an operator; the sign-in pages signed out) with something on it (a pending
 * listing with a file and an image, a published one with a pending version, a webhook, an audit
 * entry), has no axe-core violation of impact serious or critical; and the token page works with the
 * keyboard alone (Tab to each control, Space to toggle a scope, Enter to create, copy and revoke).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before } from 'node:test';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { dashboardServiceKey, loginLink, launchChromium } from '../fixtures/dashboard.js';
import { getRoutePaths, seedDashboard, type Seeded, type Who } from '../fixtures/dashboard-seed.js';
import { needs } from '../fixtures/parts.js';
import { startServerOn, stopStores } from '../fixtures/stores.js';
import type { TestServer } from '../fixtures/server.js';

const { test } = needs('chromium');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let server: TestServer;
let browser: Browser;
let seeded: Seeded;
/** The server at localhost (the sign-in link's host), its port. */
let origin: string;

before(async () => {
  [server, browser] = await Promise.all([
    startServerOn('memory', { serviceKey: dashboardServiceKey, dashboard: { selfSignUp: true } }),
    launchChromium(),
  ]);
  origin = `http://localhost:${new URL(server.url).port}`;
  seeded = await seedDashboard(server);
});
after(async () => {
  await browser?.close();
  await server?.close();
  await stopStores();
});

/** A browser context signed in as the account (a sign-in link, then Continue). */
async function signedInContext(account: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(origin + (await loginLink(server, account)));
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${origin}/dashboard/`);
  return { context, page };
}

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

interface Axe {
  run(context: Document, options: Record<string, unknown>): Promise<{ violations: Violation[] }>;
}

/**
 * Opens the dashboard page at `path` with axe-core in it: the first page of a context is navigated to
 * and axe's source run into it through CDP (the page's CSP allows no inline script); later pages are
 * fetched by the page itself (its cookie, its origin) and written over the document, which keeps the
 * window and so axe (compiling its 0.65 MB again for every page cost more than the checks). Its status.
 */
async function openWithAxe(page: Page, path: string): Promise<number | undefined> {
  const url = `${origin}/dashboard${path}`;
  if (!(await page.evaluate(() => 'axe' in window))) {
    const res = await page.goto(url);
    await page.evaluate(axeSource);
    return res?.status();
  }
  const status = await page.evaluate(async (u) => {
    const res = await fetch(u, { credentials: 'same-origin' });
    const text = await res.text();
    history.replaceState(null, '', u);
    document.open();
    document.write(text);
    document.close();
    return res.status;
  }, url);
  await page.waitForFunction(() => document.readyState === 'complete' && [...document.styleSheets].length > 0);
  return status;
}

/** axe-core's serious and critical violations on the page; in the dark scheme too (color-scheme: light dark) where `dark`. */
async function axeProblems(page: Page, dark: boolean): Promise<Violation[]> {
  const run = (options: Record<string, unknown>) => page.evaluate(async (o) => (await (window as unknown as { axe: Axe }).axe.run(document, o)).violations, options);
  await page.emulateMedia({ colorScheme: 'light' });
  const violations = await run({ resultTypes: ['violations'] });
  if (dark) {
    await page.emulateMedia({ colorScheme: 'dark' });
    violations.push(...(await run({ resultTypes: ['violations'], runOnly: ['color-contrast'] })).map((v) => ({ ...v, id: `${v.id} (dark)` })));
  }
  if (process.env.AXE_ALL) console.log(page.url(), described(violations));
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

const described = (violations: Violation[]) => violations.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`).join('\n');

test('every page of the route table: no serious or critical axe-core violation, as a seller, a moderator and an operator', { timeout: 60_000 }, async () => {
  const { pending, published, version, webhook } = seeded;
  const pages: [Who, string, string][] = [
    ['public', '/sign-in', '/sign-in'],
    ['public', '/sign-up', '/sign-up'],
    ['public', '/sign-in/{link}', await loginLink(server, server.seller.id).then((path) => path.replace('/dashboard', ''))],
    ['seller', '/', '/'],
    ['seller', '/tokens', '/tokens'],
    ['seller', '/passkeys', '/passkeys'],
    ['seller', '/listings', '/listings'],
    ['seller', '/listings/new', '/listings/new'],
    ['seller', '/listings/{id}', `/listings/${pending}`],
    ['seller', '/listings/{id}', `/listings/${published}`],
    ['seller', '/webhooks', '/webhooks'],
    ['seller', '/webhooks/{id}', `/webhooks/${webhook}`],
    ['seller', '/profile', '/profile'],
    ['seller', '/{unknown}', '/no-such-page'],
    ['moderator', '/review', '/review'],
    ['moderator', '/review', '/review?kind=version'],
    ['moderator', '/review/listings/{id}', `/review/listings/${pending}`],
    ['moderator', '/review/versions/{id}', `/review/versions/${version}`],
    ['operator', '/accounts', '/accounts'],
    ['operator', '/accounts/{account}', `/accounts/${server.seller.id}`],
    ['operator', '/audit', '/audit'],
  ];
  const covered = new Set(pages.map(([, route]) => route));
  assert.deepEqual(getRoutePaths().filter((route) => !covered.has(route)), [], 'every GET page of the route table is opened here');

  const accounts: Record<Exclude<Who, 'public'>, string> = { seller: server.seller.id, moderator: seeded.moderator.id, operator: seeded.operator.id };
  const failures: string[] = [];
  // One context per role, the roles side by side (each its own renderer), a role's pages one after another.
  await Promise.all((['public', 'seller', 'moderator', 'operator'] as const).map(async (who) => {
    const page = who === 'public' ? await (await browser.newContext()).newPage() : (await signedInContext(accounts[who])).page;
    for (const [index, [, , path]] of pages.filter(([role]) => role === who).entries()) {
      const status = await openWithAxe(page, path);
      assert.equal(status, path === '/no-such-page' ? 404 : 200, `${who} ${path}`);
      // The colours are the one stylesheet's: the dark scheme's contrast is checked on each role's first two pages (every component of the stylesheet is on them or on the light pass).
      const problems = await axeProblems(page, index < 2);
      if (problems.length) failures.push(`${who} ${path}:\n${described(problems)}`);
    }
    await page.context().close();
  }));
  assert.equal(failures.join('\n\n'), '', 'axe-core: serious or critical violations');
});

/** Presses Tab until the focused element matches `selector` (at most 40 times), and says how many it took. */
async function tabTo(page: Page, selector: string): Promise<number> {
  for (let presses = 1; presses <= 40; presses++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return presses;
  }
  throw new Error(`Tab never reached ${selector}`);
}

test('the token page with the keyboard alone: name, scopes, create, copy, stored, revoke; the token works on REST until revoked; no script error or CSP violation', { timeout: 60_000 }, async () => {
  const link = new URL(await fetch(`${server.url}/api/admin/accounts/${server.seller.id}/login-link`, { method: 'POST', headers: { authorization: `Bearer ${dashboardServiceKey}`, 'content-type': 'application/json' }, body: '{}' }).then(async (r) => (await r.json()).url as string));
  assert.equal(link.hostname, 'localhost', 'the link names a host, not an IP (passkeys refuse an IP)');
  const { context, page } = await signedInContext(server.seller.id);
  const problems: string[] = [];
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await page.goto(`${origin}/dashboard/tokens`);
  await tabTo(page, 'input[name=name]');
  await page.keyboard.type('Keyboard runner');
  const box = 'input[name=scopes][value="tokens:read"]';
  const before = await page.isChecked(box);
  await tabTo(page, box);
  await page.keyboard.press('Space');
  assert.equal(await page.isChecked(box), !before, 'Space toggles the focused scope');
  if (before) await page.keyboard.press('Space');
  await tabTo(page, 'form[action$="/tokens"] button[type=submit]');
  await page.keyboard.press('Enter');
  await page.waitForURL(`${origin}/dashboard/tokens`);
  const shown = await page.getByLabel('The new token').inputValue();
  assert.match(shown, /^smcp_/);

  await tabTo(page, '[data-copy]');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), shown);
  assert.equal((await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${shown}` } })).status, 200, 'the token works on REST');
  await tabTo(page, 'a.button');
  await page.keyboard.press('Enter');
  await page.getByRole('row', { name: /Keyboard runner/ }).waitFor();
  assert.ok(!(await page.content()).includes(shown), 'the list never shows the token again');

  page.once('dialog', (dialog) => void dialog.accept());
  await tabTo(page, 'form[data-confirm*="Keyboard runner"] button');
  await page.keyboard.press('Enter');
  await page.waitForLoadState();
  await page.getByRole('row', { name: /Keyboard runner/ }).waitFor({ state: 'detached' });
  assert.equal((await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${shown}` } })).status, 401, 'revoked with the keyboard');
  assert.deepEqual(problems, [], 'no script error and no Content-Security-Policy violation');
  await context.close();
});
