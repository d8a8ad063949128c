/**
 * Where uploads in progress live when the embedder names no upload-state store: createMarketplace
 * takes the SQL storage's own (docs/uploads.md), so a resumable upload begun on one marketplace is
 * continued by the next one on the same database, as by another instance, from the offset HEAD says.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { memoryStorage } from '../../adapters/memory/index.js';
import { sqliteStorage } from '../../adapters/sqlite/index.js';
import { as, startServer, validAsset } from '../fixtures/server.js';

const tus = { 'tus-resumable': '1.0.0' };

/** Both marketplaces are one site with one signing secret (as instances behind one address are); a URL is sent to the server at hand. */
const site = { siteUrl: 'http://marketplace.test', signingSecret: 'one secret for both marketplaces, 32+ bytes' };
const on = (url: string, server: { url: string }) => `${server.url}${new URL(url).pathname}${new URL(url).search}`;

/** A listing's upload_url on `server`, its upload created for `length` bytes and `first` appended. */
async function begun(server: Awaited<ReturnType<typeof startServer>>, length: number, first: Uint8Array): Promise<string> {
  const client = as(server, server.seller.token);
  const id = (await client.post('/assets', validAsset())).body.id as string;
  const { upload_url } = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip', file_size: length })).body as { upload_url: string };
  const appended = await fetch(on(upload_url, server), {
    method: 'PATCH',
    headers: { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' },
    body: first as BodyInit,
  });
  assert.equal(appended.status, 204);
  return upload_url;
}

test('with a SQLite storage and no uploadStates, an upload begun before a restart resumes after it from the offset HEAD reports', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-upload-states-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'marketkit.db');
  const bytes = new Uint8Array(randomBytes(50_000));

  const firstStorage = await sqliteStorage({ path });
  const first = await startServer({ storage: firstStorage, blobs: fsBlobs({ root: join(dir, 'blobs') }), ...site });
  const url = await begun(first, bytes.byteLength, bytes.subarray(0, 20_000));
  await first.close();
  await firstStorage.close();

  const nextStorage = await sqliteStorage({ path });
  const next = await startServer({ storage: nextStorage, blobs: fsBlobs({ root: join(dir, 'blobs') }), ...site });
  t.after(async () => {
    await next.close();
    await nextStorage.close();
  });
  const probed = await fetch(on(url, next), { method: 'HEAD', headers: tus });
  assert.equal(probed.status, 200, 'the next marketplace knows the upload');
  assert.equal(probed.headers.get('upload-offset'), '20000');
  const rest = await fetch(on(url, next), {
    method: 'PATCH',
    headers: { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': '20000' },
    body: bytes.subarray(20_000) as BodyInit,
  });
  assert.equal(rest.status, 204);
  assert.equal(rest.headers.get('upload-offset'), String(bytes.byteLength));
});

test('with a storage that offers no upload states (memory), they live in the process: a new marketplace does not know the upload', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-upload-states-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const storage = memoryStorage();
  const blobs = fsBlobs({ root: join(dir, 'blobs') });
  const first = await startServer({ storage, blobs, ...site });
  const url = await begun(first, 30_000, new Uint8Array(10_000));
  await first.close();
  const next = await startServer({ storage, blobs, ...site });
  t.after(() => next.close());
  assert.equal((await fetch(on(url, next), { method: 'HEAD', headers: tus })).status, 404);
});
