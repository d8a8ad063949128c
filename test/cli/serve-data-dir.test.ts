import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { fsBlobs } from '../../adapters/fs/index.js';
import { schemaVersion } from '../../adapters/sqlite/index.js';
import { patternBytes } from '../../conformance/index.js';
import { runCli, startCli, startCliServer, tempDir } from '../fixtures/cli.js';
import { as, pngBytes } from '../fixtures/server.js';

async function readAll(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of body) parts.push(part);
  return Buffer.concat(parts);
}

test('data survives a restart: the listing, its file and its image read back byte for byte', async (t) => {
  const dir = tempDir(t);
  const first = await startCliServer(['--data-dir', dir]);
  t.after(() => first.stop('SIGKILL'));
  const token = first.info.dev_seller.token!;
  assert.match(token, /^smcp_/);
  let client = as(first.info, token);

  const created = await client.post('/assets', { title: 'Castle Pack', slug: 'castle-pack', tags: ['castle'], pricing_type: 'fixed', price: 4.99 });
  assert.equal(created.status, 201);
  const id: string = created.body.id;
  const fileBytes = patternBytes(300_000, 7);
  const fileUrl = await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip' });
  assert.equal((await fetch(fileUrl.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: fileBytes as BodyInit })).status, 200);
  assert.equal((await client.post(`/assets/${id}/confirm-file`, { storage_path: fileUrl.body.storage_path, file_size: fileBytes.byteLength })).status, 200);
  const imageUrl = await client.post(`/assets/${id}/images/upload-url`, { filename: 'shot.png' });
  assert.equal((await fetch(imageUrl.body.signed_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: pngBytes as BodyInit })).status, 200);
  assert.equal((await client.post(`/assets/${id}/confirm-image`, { public_url: imageUrl.body.public_url })).status, 201);
  // Issued before the restart, used after it: the signing secret is kept with the data.
  const laterUrl = await client.post(`/assets/${id}/upload-url`, { filename: 'v2.zip' });
  const before = await client.get(`/assets/${id}`);
  assert.equal(before.status, 200);

  assert.deepStrictEqual(await first.stop('SIGINT'), { code: 0, signal: null });

  const second = await startCliServer(['--data-dir', dir]);
  t.after(() => second.stop('SIGKILL'));
  assert.deepStrictEqual(second.info.dev_seller, { ...first.info.dev_seller, token: null }, 'the dev seller is found, and no new token made');
  client = as(second.info, token);
  const after = await client.get(`/assets/${id}`);
  assert.equal(after.status, 200, 'the first start’s token still works');
  const origin = (url: string) => url.replace(/^http:\/\/[^/]+/, '');
  assert.deepStrictEqual(
    { ...after.body, images: after.body.images.map((i: { public_url: string }) => ({ ...i, public_url: origin(i.public_url) })) },
    { ...before.body, images: before.body.images.map((i: { public_url: string }) => ({ ...i, public_url: origin(i.public_url) })) },
  );
  const image = await fetch(`${second.info.url}${origin(imageUrl.body.public_url)}`);
  assert.equal(image.status, 200);
  assert.deepStrictEqual(Buffer.from(await image.arrayBuffer()), Buffer.from(pngBytes));
  const stored = await fsBlobs({ root: join(dir, 'blobs') }).get(after.body.file.storage_path);
  assert.equal(stored?.contentType, 'application/zip');
  assert.deepStrictEqual(await readAll(stored!.body), Buffer.from(fileBytes));
  const later = await fetch(laterUrl.body.signed_url.replace(/^http:\/\/[^/]+/, second.info.url), { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: fileBytes as BodyInit });
  assert.equal(later.status, 200, 'an upload URL issued before the restart is still valid');
});

test('the first start prints the dev token and a dashboard sign-in link once; a later start says how to get a new one; --no-dashboard serves none', async (t) => {
  const dir = tempDir(t);
  const banners: string[] = [];
  for (const flags of [[], [], ['--no-dashboard']]) {
    const server = await startCli(['serve', '--port', '0', '--data-dir', dir, ...flags], (stdout) => stdout.includes('Stop with Ctrl-C.'));
    t.after(() => server.stop('SIGKILL'));
    banners.push(server.stdout());
    const port = /is serving http:\/\/127\.0\.0\.1:(\d+)/.exec(server.stdout())![1];
    const link = /Sign in {5}(http:\/\/localhost:\d+\/dashboard\/sign-in\/\S+)/.exec(server.stdout())?.[1];
    if (link) {
      // The link names localhost (passkeys refuse an IP); its POST signs the dev seller in.
      const signedIn = await fetch(link.replace('localhost', '127.0.0.1'), { method: 'POST', headers: { origin: `http://localhost:${port}` }, redirect: 'manual' });
      assert.deepEqual([signedIn.status, /^marketkit_dashboard=/.test(signedIn.headers.get('set-cookie') ?? '')], [303, true]);
    }
    const dashboard = await fetch(`http://127.0.0.1:${port}/dashboard/sign-in`);
    assert.equal(dashboard.status, flags.length ? 404 : 200);
    assert.deepStrictEqual(await server.stop('SIGINT'), { code: 0, signal: null });
  }
  assert.match(banners[0]!, /Dev token {3}smcp_\w+/);
  assert.match(banners[0]!, /Dashboard {3}http:\/\/localhost:\d+\/dashboard /);
  assert.match(banners[0]!, /Sign in {5}http:\/\/localhost:\d+\/dashboard\/sign-in\//);
  assert.match(banners[0]!, /Storage {5}SQLite .*marketkit\.db/);
  assert.doesNotMatch(banners[1]!, /smcp_|Sign in {5}/);
  assert.match(banners[1]!, /Dashboard {3}/);
  assert.match(banners[1]!, /npx marketkit token create --account dev-seller --name dev --all-scopes --data-dir /);
  assert.doesNotMatch(banners[2]!, /Dashboard {3}/);
});

test('--memory keeps its data in this process: a second start has none of it (and --data-dir beside it is refused: serve-contradictions.test.ts)', async (t) => {
  for (const round of [1, 2]) {
    const server = await startCliServer(['--memory']);
    t.after(() => server.stop('SIGKILL'));
    assert.deepStrictEqual(server.info.storage, { kind: 'memory' });
    const client = as(server.info, server.info.dev_seller.token);
    assert.equal((await client.get('/assets')).body.pagination.total, 0, `start ${round} begins empty`);
    assert.equal((await client.post('/assets', { title: 'Castle Pack', slug: 'castle-pack' })).status, 201);
    await server.stop('SIGINT');
  }
});

test('a database written by a newer MarketKit is refused with a message that says so', async (t) => {
  const dir = tempDir(t);
  const server = await startCliServer(['--data-dir', dir]);
  await server.stop('SIGINT');
  const db = new Database(join(dir, 'marketkit.db'));
  db.prepare("INSERT INTO marketkit_migrations (version, name, applied_at) VALUES (999, 'future', '2030-01-01T00:00:00.000Z')").run();
  db.close();
  const run = await runCli(['serve', '--port', '0', '--data-dir', dir]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, new RegExp(`schema version 999, written by a newer MarketKit; this one knows versions up to ${schemaVersion}\\. Upgrade marketkit`));
});

test('two servers on one data directory: of 50 parallel creates with one slug exactly one is 201', async (t) => {
  const dir = tempDir(t);
  const one = await startCliServer(['--data-dir', dir]);
  t.after(() => one.stop('SIGKILL'));
  const two = await startCliServer(['--data-dir', dir]);
  t.after(() => two.stop('SIGKILL'));
  const token = one.info.dev_seller.token!;
  const clients = [as(one.info, token), as(two.info, token)];
  const statuses = await Promise.all(
    Array.from({ length: 50 }, (_, i) => clients[i % 2]!.post('/assets', { title: `Attempt ${i}`, slug: 'one-slug' }).then((r) => r.status)),
  );
  assert.equal(statuses.filter((s) => s === 201).length, 1);
  assert.equal(statuses.filter((s) => s === 409).length, 49);
  const listed = await clients[1]!.get('/assets');
  assert.equal(listed.body.pagination.total, 1);
});

test('idempotency keys survive a crash on SQLite: after SIGKILL and a restart, the retry gets the first answer and creates nothing', async (t) => {
  const dir = tempDir(t);
  const first = await startCliServer(['--data-dir', dir]);
  t.after(() => first.stop('SIGKILL'));
  const token = first.info.dev_seller.token!;
  const post = (url: string, key: string, body: unknown) =>
    fetch(`${url}/api/v1/assets`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(body) });
  const body = { title: 'Kept Key Pack', slug: 'kept-key-pack' };
  const answered = await post(first.info.url, 'restart-key-1', body);
  assert.equal(answered.status, 201);
  const text = await answered.text();
  await first.stop('SIGKILL');

  const second = await startCliServer(['--data-dir', dir]);
  t.after(() => second.stop('SIGKILL'));
  const replayed = await post(second.info.url, 'restart-key-1', body);
  assert.equal(replayed.status, 201);
  assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
  assert.equal(await replayed.text(), text, 'byte for byte the answer given before the crash');
  const listed = await as(second.info, token).get('/assets');
  assert.equal(listed.body.pagination.total, 1, 'one listing');
});
