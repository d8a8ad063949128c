/**
 * The smaller findings of the wave-4 upload security test (docs/security.md, "Findings of the
 * wave-4 upload security test"), replayed through the public surface: a zero-byte file is never a
 * listing's file, and readiness answers from a result at most about a second old.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryBlobs } from '../../adapters/memory/index.js';
import type { BlobPort } from '../../core/ports/blobs.js';
import { as, startServer, validAsset } from '../fixtures/server.js';

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

test('/readyz: a store that answered before and is slow a moment (no answer within a second) keeps the instance ready, saying so, for 5 s; slow longer, or failing, it is not ready', async (t) => {
  const blobs = memoryBlobs();
  let mode: 'ok' | 'slow' | 'fail' = 'ok';
  let lateBy = 1100;
  const server = await startServer({
    blobs: Object.assign(Object.create(blobs) as BlobPort, {
      async ping() {
        if (mode === 'fail') throw new Error('the blob store refused');
        // A store that does not answer: the check's second passes (the test's clock) and the probe gives up on it.
        if (mode === 'slow') {
          server.clock.advance(lateBy);
          return new Promise<void>(() => {});
        }
      },
    }),
  });
  t.after(() => server.close());
  const ready = async () => {
    const answer = await fetch(`${server.url}/readyz`);
    return { status: answer.status, body: await answer.json() };
  };
  assert.equal((await ready()).status, 200);
  mode = 'slow';
  server.clock.advance(1000);
  const slowOnce = await ready();
  assert.deepEqual([slowOnce.status, slowOnce.body.checks.blobs], [200, 'slow'], 'one slow moment of a store that answered a second before');
  server.clock.advance(1000);
  assert.equal((await ready()).status, 200, 'still within 5 s of its last answer');
  server.clock.advance(3000);
  const slowLong = await ready();
  assert.deepEqual([slowLong.status, slowLong.body.checks.blobs], [503, 'slow'], 'slow for more than 5 s: not ready');
  assert.match(slowLong.body.error, /blobs/);
  mode = 'ok';
  server.clock.advance(1000);
  assert.equal((await ready()).status, 200);
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
