import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { fsBlobs } from '../../adapters/fs/index.js';
import { patternBytes } from '../../conformance/index.js';
import { startCliServer, tempDir } from '../fixtures/cli.js';
import { as } from '../fixtures/server.js';

const workers = 8;
const killAfterCreates = 25;
const fileBytes = 256 * 1024;

async function readAll(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of body) parts.push(part);
  return Buffer.concat(parts);
}

function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
  } catch {
    return [];
  }
}

test('SIGKILL mid-burst: every answered write is there after a restart, nothing half-written is visible, the database is intact', async (t) => {
  const dir = tempDir(t);
  const server = await startCliServer(['--data-dir', dir]);
  t.after(() => server.stop('SIGKILL'));
  const token = server.info.dev_seller.token!;
  const client = as(server.info, token);

  const created = new Map<string, string>(); // id -> slug, answered 201
  const attempted = new Map<string, Buffer>(); // storage path -> bytes PUT (answered or not)
  const stored = new Set<string>(); // storage paths whose PUT was answered 200
  const confirmed = new Map<string, string>(); // asset id -> storage path, answered 200
  let killed = false;
  let sequence = 0;

  // An upload that is mid-body when the process dies: its bytes must never become an object.
  const slow = await client.post('/assets', { title: 'Slow Upload', slug: 'slow-upload' });
  created.set(slow.body.id, 'slow-upload');
  const slowUrl = await client.post(`/assets/${slow.body.id}/upload-url`, { filename: 'slow.zip' });
  let sentFirstChunk: () => void;
  const firstChunkSent = new Promise<void>((resolve) => (sentFirstChunk = resolve));
  const slowBody = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(patternBytes(64 * 1024, 99));
      sentFirstChunk();
      return new Promise(() => {}); // never more: the upload hangs mid-body
    },
  });
  const slowPut = fetch(slowUrl.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: slowBody, duplex: 'half' } as RequestInit).catch(() => null);

  const kill = async () => {
    if (killed) return;
    killed = true;
    await firstChunkSent;
    await server.stop('SIGKILL');
  };

  async function worker(): Promise<void> {
    while (!killed) {
      const n = ++sequence;
      const slug = `burst-${n}`;
      const create = await client.post('/assets', { title: `Burst ${n}`, slug, tags: ['burst'] });
      if (create.status !== 201) throw new Error(`create answered ${create.status}`);
      created.set(create.body.id, slug);
      if (created.size >= killAfterCreates) void kill();
      const issued = await client.post(`/assets/${create.body.id}/upload-url`, { filename: 'pack.zip' });
      if (issued.status !== 200) throw new Error(`upload-url answered ${issued.status}`);
      const bytes = Buffer.from(patternBytes(fileBytes, n));
      attempted.set(issued.body.storage_path, bytes);
      const put = await fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: bytes });
      await put.arrayBuffer();
      if (put.status !== 200) throw new Error(`PUT answered ${put.status}`);
      stored.add(issued.body.storage_path);
      const confirm = await client.post(`/assets/${create.body.id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: fileBytes });
      if (confirm.status !== 200) throw new Error(`confirm-file answered ${confirm.status}`);
      confirmed.set(create.body.id, issued.body.storage_path);
    }
  }
  const outcomes = await Promise.allSettled(Array.from({ length: workers }, worker));
  await slowPut;
  // Before the kill every request must succeed; after it only connection failures are expected.
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') assert.match(String(outcome.reason?.cause?.code ?? outcome.reason), /ECONNRESET|ECONNREFUSED|UND_ERR_SOCKET|fetch failed|other side closed/);
  }
  assert.ok(killed && created.size >= killAfterCreates, 'the server was killed mid-burst');

  // The upload cut off by the kill left a partial temporary file; the restarted server removes it
  // at once (its process is gone), not an hour later.
  assert.ok(filesUnder(join(dir, 'blobs', 'tmp')).length > 0, 'the killed upload left a partial temporary file');
  const restarted = await startCliServer(['--data-dir', dir]);
  t.after(() => restarted.stop('SIGKILL'));
  const after = as(restarted.info, token);
  assert.equal((await fetch(`${restarted.info.url}/api/v1/health`)).status, 200);
  assert.deepEqual(filesUnder(join(dir, 'blobs', 'tmp')), [], 'no partial temporary file survives the restart');

  for (const [id, slug] of created) {
    const read = await after.get(`/assets/${id}`);
    assert.equal(read.status, 200, `asset ${slug}, answered 201, is there`);
    assert.equal(read.body.slug, slug);
    if (confirmed.has(id)) assert.deepStrictEqual([read.body.file?.storage_path, read.body.file?.file_size], [confirmed.get(id), fileBytes]);
  }
  // Every listed asset reads whole, answered or not.
  const listed = await after.get('/assets?limit=100');
  assert.ok(listed.body.pagination.total >= created.size);
  for (const asset of listed.body.data) assert.equal((await after.get(`/assets/${asset.id}`)).status, 200);

  const blobs = fsBlobs({ root: join(dir, 'blobs') });
  for (const [path, bytes] of attempted) {
    // Confirmed uploads live at their storage path; the others wait under their staging key.
    const object = (await blobs.get(path)) ?? (await blobs.get(`staging/${path}`));
    if (stored.has(path)) assert.ok(object, `${path}, answered 200, is there`);
    if (object) assert.deepStrictEqual(await readAll(object.body), bytes, `${path} is whole`);
  }
  assert.equal(await blobs.head(slowUrl.body.storage_path), null, 'the upload cut off mid-body left no object');
  assert.equal(await blobs.head(`staging/${slowUrl.body.storage_path}`), null, 'nor a staged one');
  for (const file of filesUnder(join(dir, 'blobs', 'objects'))) assert.ok(attempted.has(file.replace(/^staging\//, '')), `${file} is an object some PUT sent whole`);

  await restarted.stop('SIGINT');
  const db = new Database(join(dir, 'marketkit.db'), { readonly: true });
  try {
    assert.deepStrictEqual(db.prepare('PRAGMA integrity_check').all(), [{ integrity_check: 'ok' }]);
  } finally {
    db.close();
  }
});
