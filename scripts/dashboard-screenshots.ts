// The dashboard's screenshots in docs/dashboard.md ("Screenshots"), made from a seeded server:
// `npm run docs:screenshots` starts a marketplace in this process (memory storage, the dashboard on,
// the test fixtures' manual clock, so dates do not move between runs), seeds it as the accessibility
// test does (test/fixtures/dashboard-seed.ts) plus a few listings of a seller's with solid-colour PNG
// images, launches Debian's Chromium through playwright-core (the part's path: scripts/test-parts.mjs),
// signs in as a seller, a moderator and an operator, and writes docs/images/dashboard/<name>.png
// (1200x800, device scale 1, light scheme, the viewport only). test/docs/dashboard-screenshots.test.ts
// checks that `screenshots` below and the images docs/dashboard.md embeds agree.
// Importing this module runs nothing: the server, the fixtures and the browser are loaded in `main`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import type { TestServer } from '../test/fixtures/server.js';

export type Role = 'seller' | 'moderator' | 'operator';

/** The ids a screenshot's path is filled in with: `{listing}` etc. */
interface Ids {
  listing: string;
  version: string;
  seller: string;
}

export interface Screenshot {
  /** The file: docs/images/dashboard/<name>.png. */
  name: string;
  /** Its alt text in docs/dashboard.md. */
  alt: string;
  who: Role;
  /** The page under /dashboard, `{id}` filled in from the seeded ids. */
  path: string;
}

/** Every screenshot, in the order docs/dashboard.md shows them. */
export const screenshots: readonly Screenshot[] = [
  { name: 'listings', alt: "The seller's listings", who: 'seller', path: '/listings' },
  { name: 'listing', alt: "A listing's page", who: 'seller', path: '/listings/{listing}' },
  { name: 'tokens', alt: 'The tokens page right after a token is made (shown once)', who: 'seller', path: '/tokens' },
  { name: 'review-queue', alt: "The moderators' review queue", who: 'moderator', path: '/review' },
  { name: 'version-review', alt: "A version's review", who: 'moderator', path: '/review/versions/{version}' },
  { name: 'account', alt: "An account's page (operator)", who: 'operator', path: '/accounts/{seller}' },
  { name: 'audit-log', alt: 'The audit log', who: 'operator', path: '/audit' },
];

export const imagesDir = new URL('../docs/images/dashboard/', import.meta.url);
const viewport = { width: 1200, height: 800 };

const help = `npm run docs:screenshots [-- --help]

Writes the dashboard's screenshots into docs/images/dashboard/ (${screenshots.map((s) => `${s.name}.png`).join(', ')}):
starts a marketplace in this process (memory storage, a fixed clock), seeds listings, a review queue, a
version waiting for review, a webhook, a moderator and an operator, signs in to the dashboard in Chromium
(Debian's chromium, or CHROMIUM_PATH) as each role and saves each page at ${viewport.width}x${viewport.height}.
The token on the tokens page is a throwaway of that server; every token and prefix is masked (smcp_xxxx...).`;

// ---- A solid-colour PNG, written here (no binary fixtures) ----

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const out = Buffer.alloc(body.length + 8);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), body.length + 4);
  return out;
}

/** A `width` x `height` PNG of one colour (8-bit RGB). */
export function solidPng(width: number, height: number, [r, g, b]: [number, number, number]): Uint8Array {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter, no interlace
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([r, g, b], 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array(Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(pixels)), chunk('IEND', new Uint8Array())]));
}

// ---- The seeded server ----

/** A seller's listings beside the seed's (which gives the pending "Castle Walls Pack" and the published one with a version). */
const listings = [
  { title: 'Dungeon Props Bundle', price: 9.99, tags: ['dungeon', 'props'], colour: [46, 125, 110], then: 'publish' },
  { title: 'Sci-Fi UI Kit', price: 12, tags: ['ui', 'sci-fi'], colour: [52, 92, 170], then: 'submit' },
  { title: 'Pixel Forest Tileset', price: 3.49, tags: ['tileset', 'pixel-art'], colour: [96, 150, 60], then: 'draft' },
] as const;

async function seededServer(): Promise<{ server: TestServer; ids: Ids; accounts: Record<Role, string> }> {
  const { startServer, as, assetWithFile, uploadImage } = await import('../test/fixtures/server.js');
  const { dashboardServiceKey } = await import('../test/fixtures/dashboard.js');
  const { seedDashboard } = await import('../test/fixtures/dashboard-seed.js');
  const started = await startServer({ serviceKey: dashboardServiceKey, dashboard: {} });
  // The seller the pictures show: a named studio instead of the fixture's user-1.
  const seller = await started.account({ username: 'harbor-games', display_name: 'Harbor Games' });
  const server: TestServer = { ...started, seller };
  const seeded = await seedDashboard(server, 'Castle Walls Pack', solidPng(320, 180, [150, 110, 70]));
  const api = as(server, seller.token);
  let shown = seeded.published;
  for (const listing of listings) {
    const { id } = await assetWithFile(server, seller.token, { title: listing.title, slug: listing.title.toLowerCase().replace(/[^a-z0-9]+/g, '-'), pricing_type: 'fixed', price: listing.price, tags: [...listing.tags], description: `${listing.title}: ready for your next game.` });
    const image = await uploadImage(server, seller.token, id, solidPng(320, 180, [...listing.colour]), 'cover.png');
    if (image.status !== 201) throw new Error(`image: ${JSON.stringify(image.body)}`);
    if (listing.then === 'draft') continue;
    if ((await api.post(`/assets/${id}/submit`)).status !== 200) throw new Error(`submit ${listing.title}`);
    if (listing.then === 'publish') {
      // A round of review before the approval, so that the listing's page has a history to show.
      await server.marketplace.moderation.requestChanges(id, 'Add a screenshot of the props in a scene.');
      if ((await api.post(`/assets/${id}/submit`)).status !== 200) throw new Error(`resubmit ${listing.title}`);
      await server.marketplace.moderation.approve(id);
      shown = id;
    }
  }
  return {
    server,
    ids: { listing: shown, version: seeded.version, seller: seller.id },
    accounts: { seller: seller.id, moderator: seeded.moderator.id, operator: seeded.operator.id },
  };
}

// ---- The browser ----

async function launch(): Promise<Browser> {
  const { partPath } = await import('../test/fixtures/parts.js');
  let executablePath: string;
  try {
    executablePath = partPath('chromium');
  } catch (error) {
    throw new Error(`npm run docs:screenshots needs Chromium. ${(error as Error).message}`);
  }
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--hide-scrollbars', '--font-render-hinting=none'] });
}

/** A page signed in as the account (a sign-in link, then Continue), at the fixed viewport. */
async function signedInPage(browser: Browser, server: TestServer, origin: string, account: string): Promise<Page> {
  const { loginLink } = await import('../test/fixtures/dashboard.js');
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, colorScheme: 'light', reducedMotion: 'reduce', locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  await page.goto(origin + (await loginLink(server, account)));
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${origin}/dashboard/`);
  return page;
}

/** Makes a token on the tokens page (the page as it is right after, the token shown once). */
async function makeToken(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/dashboard/tokens`);
  await page.locator('input[name=name]').fill('CI publishing');
  await page.locator('form[action$="/tokens"] button[type=submit]').click();
  await page.waitForURL(`${origin}/dashboard/tokens`);
  await page.getByLabel('The new token').waitFor();
}

/** Every token and token prefix on the page (random each run: text and inputs) masked to smcp_xxxx..., so the pictures do not change. */
async function maskTokens(page: Page): Promise<void> {
  // A string, not a function: tsx's names helper (__name) is not in the page.
  await page.evaluate(`(() => {
    const mask = (text) => text.replace(/smcp_[A-Za-z0-9_-]+/g, (token) => 'smcp_' + 'x'.repeat(token.length - 5));
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) node.textContent = mask(node.textContent ?? '');
    for (const input of document.querySelectorAll('input')) input.value = mask(input.value);
  })()`);
}

export async function main(args: string[]): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(help);
    return;
  }
  const browser = await launch();
  let server: TestServer | undefined;
  try {
    const seeded = await seededServer();
    server = seeded.server;
    const { ids, accounts } = seeded;
    const origin = `http://localhost:${new URL(server.url).port}`;
    mkdirSync(imagesDir, { recursive: true });
    const pages = new Map<Role, Page>();
    for (const shot of screenshots) {
      const page = pages.get(shot.who) ?? (await signedInPage(browser, server, origin, accounts[shot.who]));
      pages.set(shot.who, page);
      if (shot.name === 'tokens') await makeToken(page, origin);
      else await page.goto(`${origin}/dashboard${shot.path.replace(/\{(\w+)\}/g, (_, key: keyof Ids) => ids[key])}`);
      await maskTokens(page);
      await page.evaluate(() => document.fonts.ready);
      const png = await page.screenshot({ fullPage: false, animations: 'disabled', caret: 'hide' });
      writeFileSync(new URL(`${shot.name}.png`, imagesDir), png);
      console.log(`docs/images/dashboard/${shot.name}.png  ${(png.length / 1024).toFixed(1)} KB  (${shot.who} ${shot.path})`);
    }
  } finally {
    await browser.close();
    await server?.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
