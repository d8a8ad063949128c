/**
 * The listing page's uploads in a real browser (Debian's Chromium, playwright-core, at localhost;
 * docs/dashboard.md, "Uploading on the listing page"): a seller uploads a 50 MiB file with the
 * vendored tus client, the connection is cut after two of its 8 MiB chunks, the page is reloaded,
 * the same file chosen again goes on from the server's offset, is paused (the server's offset and
 * the page's progress stay put) and resumed from there, and the page then shows the file's SHA-256,
 * as REST does; a gallery image is uploaded the same way and shown; the listing, made on the New
 * listing page, is submitted on its page (REST sees it pending); a published listing's new
 * version is made on its page and its file uploaded there (REST's version holds it, the live file
 * is unchanged). No script error and no Content-Security-Policy violation.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { type Browser } from 'playwright-core';
import { loginLink, launchChromium } from '../fixtures/dashboard.js';
import { needs } from '../fixtures/parts.js';
import { as, assetWithFile, type TestServer } from '../fixtures/server.js';
import { startServerOn, stopStores } from '../fixtures/stores.js';

const { test } = needs('chromium');
const serviceKey = 'dashboard-upload-key-0123456789abcdef01234';
const size = 50 * 1024 * 1024;
const chunk = 8 * 1024 * 1024;
/** A 1×1 PNG, so the gallery's <img> really loads. */
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
let server: TestServer;
let browser: Browser;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'marketkit-upload-'));
  server = await startServerOn('memory', { serviceKey, dashboard: {} });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
  await stopStores();
  rmSync(dir, { recursive: true, force: true });
});

test('a listing made on its page; upload a 50 MiB file, cut the connection, reload, resume from the server’s offset, Pause and Resume; its SHA-256 shown; an image added to the gallery; submitted; a new version’s file uploaded on the page', { timeout: 120_000 }, async () => {
  const seller = as(server, server.seller.token);
  const bytes = randomBytes(size);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const path = join(dir, 'big-pack.zip');
  writeFileSync(path, bytes);

  const origin = `http://localhost:${new URL(server.url).port}`;
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${origin}${await loginLink(server, server.seller.id, serviceKey)}`);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${origin}/dashboard/`);
  // The listing is made on the New listing page, as a seller makes one.
  await page.goto(`${origin}/dashboard/listings`);
  await page.getByRole('link', { name: 'New listing' }).click();
  await page.getByLabel('Title').fill('Big pack');
  await page.getByLabel('Slug').fill('big-pack');
  await page.getByLabel('Description').fill('Fifty mebibytes of assets.');
  await page.getByRole('button', { name: 'Create draft' }).click();
  await page.waitForURL(/\/dashboard\/listings\/[0-9a-f-]{36}\?done=created$/);
  const id = /listings\/([0-9a-f-]{36})/.exec(page.url())![1]!;
  assert.equal((await seller.get<{ title: string; status: string }>(`/assets/${id}`)).body.status, 'draft', 'REST sees the draft');

  // After two PATCHes have arrived, the browser goes offline and every later request of the upload
  // is cut (observed, not intercepted: the 8 MiB chunks never pass through the test's hands).
  let finished = 0;
  let cut: Promise<unknown> | undefined;
  page.on('requestfinished', (request) => {
    if (request.method() === 'PATCH' && ++finished === 2) cut = Promise.all([context.setOffline(true), page.route('**/api/v1/uploads/**', (route) => route.abort('internetdisconnected'))]);
  });
  const fileForm = page.locator('form[data-upload="file"]');
  await page.getByLabel('Listing file', { exact: true }).setInputFiles(path);
  await fileForm.getByRole('button', { name: 'Upload' }).click();
  await fileForm.getByText(/The upload stopped/).waitFor();
  await cut;
  const stoppedAt = Number(await fileForm.locator('progress').getAttribute('value'));
  assert.ok(stoppedAt >= 30 && stoppedAt < 100, `stopped at ${stoppedAt}%`);
  // Where the server is: the upload's own offset, asked of the tus endpoint with the URL the page kept for resuming.
  const kept = await page.evaluate(() => Object.entries(localStorage).filter(([key]) => key.startsWith('tus::')).map(([, value]) => JSON.parse(value).uploadUrl as string));
  assert.equal(kept.length, 1, 'the page kept one upload to resume');
  const head = await fetch(new URL(kept[0]!, server.url), { method: 'HEAD', headers: { 'tus-resumable': '1.0.0', authorization: `Bearer ${server.seller.token}` } });
  const serverOffset = Number(head.headers.get('upload-offset'));
  assert.ok(serverOffset >= 2 * chunk && serverOffset < size, `the server holds ${serverOffset} bytes`);
  await page.unrouteAll();
  await context.setOffline(false);

  await page.reload();
  // From the first chunk after the reload, uploads are throttled to 4 MiB/s (Chromium's network
  // emulation, over CDP) so that Pause is pressed while a chunk is on its way, not after the last.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const throttle = (uploadThroughput: number) => cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput });
  let throttled: Promise<unknown> | undefined;
  const offsets: number[] = [];
  let pausedPatches = 0;
  let paused = false;
  page.on('request', (request) => {
    if (request.method() !== 'PATCH') return;
    offsets.push(Number(request.headers()['upload-offset']));
    throttled ??= throttle(4 * 1024 * 1024);
    if (paused) pausedPatches++;
  });
  const firstChunkAfterReload = new Promise<void>((resolve) => page.on('requestfinished', (request) => request.method() === 'PATCH' && resolve()));
  await page.getByLabel('Listing file', { exact: true }).setInputFiles(path);
  await fileForm.getByRole('button', { name: 'Upload' }).click();

  // Pause mid-upload (after the first chunk the reload sent): the server's offset and the page's
  // progress stay put for a second, no PATCH is sent; Resume goes on from that offset.
  await firstChunkAfterReload;
  await throttled;
  await fileForm.getByRole('button', { name: 'Pause' }).click();
  paused = true;
  await fileForm.getByText('Paused.', { exact: true }).waitFor();
  assert.equal(await fileForm.locator('[data-upload-pause]').textContent(), 'Resume');
  const offsetNow = async () => Number((await fetch(new URL(kept[0]!, server.url), { method: 'HEAD', headers: { 'tus-resumable': '1.0.0', authorization: `Bearer ${server.seller.token}` } })).headers.get('upload-offset'));
  const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  await settle(300); // the PATCH the pause aborted ends on the server
  const pausedAt = await offsetNow();
  const shownAt = await fileForm.locator('progress').getAttribute('value');
  assert.ok(pausedAt > serverOffset && pausedAt < size, `paused part-way: ${pausedAt} of ${size}`);
  await settle(1000);
  assert.deepEqual([await offsetNow(), await fileForm.locator('progress').getAttribute('value'), pausedPatches], [pausedAt, shownAt, 0], 'nothing moves while paused');
  const beforeResume = offsets.length;
  paused = false;
  await throttle(-1);
  await fileForm.getByRole('button', { name: 'Resume' }).click();
  await page.waitForURL(/done=uploaded/);
  assert.equal(offsets[0], serverOffset, 'the first PATCH after the reload starts at the server’s offset');
  assert.equal(offsets[beforeResume], pausedAt, 'Resume goes on from the server’s offset at the pause');
  assert.ok(size - offsets[0]! < size, `${size - offsets[0]!} bytes sent after the reload, of ${size}`);
  await page.getByText(sha256).waitFor();
  const rest = await seller.get<{ file: { sha256: string; file_size: number } }>(`/assets/${id}`);
  assert.equal(rest.body.file.sha256, sha256);
  assert.equal(rest.body.file.file_size, size);
  assert.equal(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('tus::')).length), 0, 'the resume record is gone once the upload succeeded');

  await page.getByLabel('Gallery image', { exact: true }).setInputFiles({ name: 'shot.png', mimeType: 'image/png', buffer: png });
  await page.locator('form[data-upload="image"]').getByRole('button', { name: 'Upload' }).click();
  await page.waitForURL(/done=image_added/);
  const image = page.locator('.gallery img');
  await image.waitFor();
  assert.equal(await image.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth)), 1, 'the image is shown, from the page’s own origin');
  assert.equal((await seller.get<{ images: unknown[] }>(`/assets/${id}`)).body.images.length, 1);
  // Submitted for review on its page: REST sees it pending, with that file.
  await page.getByRole('button', { name: 'Submit for review' }).click();
  await page.waitForURL(/done=submitted/);
  const submitted = (await seller.get<{ status: string; file: { sha256: string } }>(`/assets/${id}`)).body;
  assert.deepEqual([submitted.status, submitted.file.sha256], ['pending', sha256]);

  // A published listing's new version (REST, then the admin approve): made on the listing page, its
  // file uploaded there; REST's version holds it with its SHA-256, the live file is unchanged.
  const live = await assetWithFile(server, server.seller.token, { title: 'Live pack' });
  assert.equal((await seller.post(`/assets/${live.id}/submit`)).status, 200);
  const approved = await fetch(`${server.url}/api/admin/assets/${live.id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${serviceKey}` } });
  assert.equal(approved.status, 200);
  const liveFile = (await seller.get<{ file: unknown }>(`/assets/${live.id}`)).body.file;
  await page.goto(`${origin}/dashboard/listings/${live.id}`);
  await page.getByLabel('Version', { exact: true }).fill('1.1.0');
  await page.getByRole('button', { name: 'New version' }).click();
  await page.waitForURL(/done=/);
  const versionBytes = randomBytes(3 * 1024 * 1024 + 17);
  const versionPath = join(dir, 'live-pack-1.1.0.zip');
  writeFileSync(versionPath, versionBytes);
  const versionForm = page.locator('form[data-upload="file"]', { has: page.getByLabel('File of version 1.1.0', { exact: true }) });
  await page.getByLabel('File of version 1.1.0', { exact: true }).setInputFiles(versionPath);
  await versionForm.getByRole('button', { name: 'Upload' }).click();
  await page.waitForURL(/done=version_uploaded/);
  const versions = (await seller.get<{ items: { version: string; status: string; file: { sha256: string; file_size: number } | null }[] }>(`/assets/${live.id}/versions`)).body.items;
  assert.deepEqual(versions.map((v) => [v.version, v.status, v.file?.sha256, v.file?.file_size]), [['1.1.0', 'draft', createHash('sha256').update(versionBytes).digest('hex'), versionBytes.byteLength]]);
  const after = (await seller.get<{ file: unknown; version: string }>(`/assets/${live.id}`)).body;
  assert.deepEqual([after.file, after.version], [liveFile, '1.0.0'], 'the live file is unchanged');

  // The cut request is the one failure the console reports.
  assert.deepEqual(problems.filter((text) => !/ERR_INTERNET_DISCONNECTED/.test(text)), [], 'no script error and no Content-Security-Policy violation');
  await context.close();
});
