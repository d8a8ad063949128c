/**
 * The smaller findings of the wave-4 upload security test (docs/security.md, "Findings of the
 * wave-4 upload security test"), replayed through the public surface: a zero-byte file is never a
 * listing's file, and readiness answers from a result at most about a second old.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import type { BlobPort } from '../../core/ports/blobs.js';
import { as, putSigned, startServer, validAsset } from '../fixtures/server.js';
import { StorageUnavailableError } from '../../core/errors.js';
import { readAllBytes } from '../../core/pipeline/body.js';

test('a zero-byte upload is refused at confirm-file: 422 EMPTY_FILE naming storage_path, and nothing is confirmed', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const client = as(server, server.seller.token);
  const id = (await client.post('/assets', validAsset())).body.id;
  const put = (await client.post(`/assets/${id}/upload-url`, { filename: 'empty.zip' })).body;
  assert.equal((await fetch(put.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: new Uint8Array(0) })).status, 200);
  // The same empty file by the resumable protocol: an upload of length 0 is complete at once, and a tus client sends no PATCH.
  const tus = (await client.post(`/assets/${id}/upload-url`, { filename: 'empty.zip', file_size: 0 })).body;
  const head = await fetch(tus.upload_url, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
  assert.deepEqual([head.status, head.headers.get('upload-offset'), head.headers.get('upload-length')], [200, '0', '0']);
  for (const storage_path of [put.storage_path, tus.storage_path]) {
    // The contract's order: a file_size that is not the upload's is the input's fault first (400).
    const wrongSize = await client.post(`/assets/${id}/confirm-file`, { storage_path, file_size: 5 });
    assert.equal(wrongSize.status, 400, JSON.stringify(wrongSize.body));
    assert.deepEqual([wrongSize.body.code, wrongSize.body.details[0].path], ['INVALID_INPUT', 'file_size']);
    const refused = await client.post(`/assets/${id}/confirm-file`, { storage_path, file_size: 0 });
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'EMPTY_FILE');
    assert.equal(refused.body.details[0].path, 'storage_path');
    assert.match(refused.body.error, /^storage_path holds no bytes/);
  }
  assert.equal((await client.get(`/assets/${id}`)).body.file, null, 'nothing confirmed');
  assert.equal((await client.post(`/assets/${id}/submit`)).body.code, 'NO_FILE', 'and the listing cannot be submitted with it');
});

test('/readyz answers from a result at most a second old: a flood costs the stores one check, and a store gone down shows within a second', async (t) => {
  const blobs = memoryBlobs();
  let pings = 0;
  let down = false;
  const counted: BlobPort = Object.assign(Object.create(blobs) as BlobPort, {
    async ping() {
      pings++;
      if (down) throw new Error('the blob store is down');
    },
  });
  const server = await startServer({ blobs: counted });
  t.after(() => server.close());
  const ready = () => fetch(`${server.url}/readyz`).then(async (answer) => ({ status: answer.status, body: await answer.json() }));
  const first = await Promise.all(Array.from({ length: 100 }, ready));
  for (let i = 0; i < 100; i++) first.push(await ready());
  assert.ok(first.every((answer) => answer.status === 200));
  assert.equal(pings, 1, '200 calls within a second, one check of the store');
  server.clock.advance(1001);
  assert.equal((await ready()).status, 200);
  assert.equal(pings, 2, 'a second later, a new check');
  down = true;
  assert.equal((await ready()).status, 200, 'within the second, the last result');
  server.clock.advance(1001);
  const after = await ready();
  assert.equal(after.status, 503, JSON.stringify(after.body));
  assert.equal(after.body.checks.blobs, 'error');
  down = false;
  server.clock.set(server.clock.now() - 3_600_000);
  assert.equal((await ready()).status, 200, 'a clock set back an hour does not keep the last result for that hour');
});

test('/readyz: a database that answered before and is slow a moment keeps the instance ready, saying so, for 5 s, slow longer it is not; a slow blob store never takes it out; a failing store does at once', async (t) => {
  const blobs = memoryBlobs();
  const storage = memoryStorage();
  let mode: 'ok' | 'slow' | 'fail' = 'ok';
  let database: 'ok' | 'slow' = 'ok';
  let lateBy = 1100;
  // A store that does not answer: the check's second passes (the test's clock) and the probe gives up on it.
  const never = () => {
    server.clock.advance(lateBy);
    return new Promise<void>(() => {});
  };
  const server = await startServer({
    storage: Object.assign(Object.create(storage) as typeof storage, { ping: async () => (database === 'slow' ? never() : undefined) }),
    blobs: Object.assign(Object.create(blobs) as BlobPort, {
      async ping() {
        if (mode === 'fail') throw new Error('the blob store refused');
        if (mode === 'slow') return never();
      },
    }),
  });
  t.after(() => server.close());
  const ready = async () => {
    const answer = await fetch(`${server.url}/readyz`);
    return { status: answer.status, body: await answer.json() };
  };
  assert.equal((await ready()).status, 200);
  database = 'slow';
  server.clock.advance(1000);
  const slowOnce = await ready();
  assert.deepEqual([slowOnce.status, slowOnce.body.checks.storage], [200, 'slow'], 'one slow moment of a database that answered a second before');
  server.clock.advance(1000);
  assert.equal((await ready()).status, 200, 'still within 5 s of its last answer');
  server.clock.advance(3000);
  const slowLong = await ready();
  assert.deepEqual([slowLong.status, slowLong.body.checks.storage], [503, 'slow'], 'slow for more than 5 s: not ready');
  assert.match(slowLong.body.error, /storage/);
  database = 'ok';
  mode = 'slow';
  for (let second = 0; second < 30; second += 3) {
    server.clock.advance(3000);
    const blobsSlow = await ready();
    assert.deepEqual([blobsSlow.status, blobsSlow.body.checks.blobs], [200, 'slow'], `a slow blob store, ${second} s on: still ready (only uploads need it)`);
  }
  mode = 'fail';
  server.clock.advance(1000);
  const failed = await ready();
  assert.deepEqual([failed.status, failed.body.checks.blobs], [503, 'error'], 'a store that fails is not ready at once');
  // The seed's health knows ok and error only: a slow store is an error there, as before.
  mode = 'slow';
  lateBy = 2100;
  const health = await fetch(`${server.api}/health`).then((answer) => answer.json());
  assert.equal(health.checks.blobs, 'error');
});

test('/readyz: a result is as old as its check’s start, so a check that took over a second is not answered again (one slow moment is one failed check, not two)', async (t) => {
  const blobs = memoryBlobs();
  let pings = 0;
  let slow = false;
  const server = await startServer({
    blobs: Object.assign(Object.create(blobs) as BlobPort, {
      async ping() {
        pings++;
        // A store that answers late: the check's second passes while it waits, and the probe counts it failed.
        if (slow) {
          server.clock.advance(1100);
          throw new Error('the blob store answered too late');
        }
      },
    }),
  });
  t.after(() => server.close());
  const ready = () => fetch(`${server.url}/readyz`).then((answer) => answer.status);
  slow = true;
  assert.equal(await ready(), 503);
  slow = false;
  assert.equal(await ready(), 200, 'the next check asks the stores again');
  assert.equal(pings, 2);
});

test('a confirm whose listing change fails for a moment (503, the database restarting) keeps the bytes: its retry confirms them, on the single PUT and the resumable upload', async (t) => {
  const storage = memoryStorage();
  let failNext = 0;
  // The outage is heard (onError, as an operator's log would have it); nothing else may be.
  const heard: unknown[] = [];
  const server = await startServer({
    onError: (error) => heard.push(error),
    storage: Object.assign(Object.create(storage) as typeof storage, {
      async updateAsset(...args: Parameters<typeof storage.updateAsset>) {
        if (failNext > 0) {
          failNext--;
          throw new StorageUnavailableError('the database is restarting');
        }
        return storage.updateAsset(...args);
      },
    }),
  });
  t.after(() => server.close());
  const seller = as(server, server.seller.token);
  const bytes = new TextEncoder().encode('PK the pack itself, kept through a failed confirm');
  // The single PUT (confirm moves the bytes from the staging key) and a tus upload (completed in place).
  for (const how of ['put', 'tus'] as const) {
    const id = (await seller.post('/assets', validAsset())).body.id;
    const issued = (await seller.post(`/assets/${id}/upload-url`, { filename: 'pack.zip', ...(how === 'tus' ? { file_size: bytes.byteLength } : {}) })).body;
    if (how === 'put') assert.equal((await putSigned(issued.signed_url, bytes, 'application/zip')).status, 200);
    else {
      const patched = await fetch(issued.upload_url, { method: 'PATCH', headers: { 'tus-resumable': '1.0.0', 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, body: bytes });
      assert.equal(patched.status, 204);
    }
    failNext = 10;
    const failed = await seller.post(`/assets/${id}/confirm-file`, { storage_path: issued.storage_path, file_size: bytes.byteLength });
    assert.deepEqual([failed.status, failed.body.code], [503, 'SERVICE_UNAVAILABLE'], how);
    failNext = 0;
    const retried = await seller.post(`/assets/${id}/confirm-file`, { storage_path: issued.storage_path, file_size: bytes.byteLength });
    assert.equal(retried.status, 200, `${how}: ${JSON.stringify(retried.body)}`);
    const stored = await server.marketplace.ports.blobs.get(issued.storage_path);
    assert.deepEqual(new Uint8Array(await readAllBytes(stored!.body)), bytes, `${how}: the bytes confirmed are the ones sent`);
  }
  assert.ok(heard.length > 0 && heard.every((error) => error instanceof StorageUnavailableError), 'only the outage was heard');
});
