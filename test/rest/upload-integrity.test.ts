/**
 * The contract's upload rules (Uploads: "Confirmed bytes never change"), on every blob store:
 * memory, the filesystem, and S3 (s3rver, its own process, where the client's PUT never passes
 * through the marketplace). Also the upload sweep, the PUT/DELETE race, the storage quota and what a
 * restricted account may do (Accounts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { memoryBlobs } from '../../adapters/memory/index.js';
import { s3Blobs } from '../../adapters/s3/index.js';
import type { BlobPort } from '../../core/ports/blobs.js';
import type { ClockPort } from '../../core/ports/clock.js';
import { as, pngBytes, startServer, validAsset, webpBytes, type TestServer } from '../fixtures/server.js';
import { s3rverCredentials, startS3Server, type S3Server } from '../fixtures/s3.js';
import { filesUnder } from '../fixtures/files.js';

let s3: S3Server;
before(async () => {
  s3 = await startS3Server();
});
after(() => s3.stop());

const put = (url: string, body: Uint8Array, contentType = 'application/zip') =>
  fetch(url, { method: 'PUT', headers: { 'content-type': contentType }, body: body as BodyInit });

async function readBlob(blobs: BlobPort, path: string): Promise<Uint8Array | null> {
  const object = await blobs.get(path);
  if (!object) return null;
  const parts: Uint8Array[] = [];
  for await (const part of object.body) parts.push(part);
  return new Uint8Array(Buffer.concat(parts));
}

interface Store {
  name: string;
  /** Whether PUTs go through the marketplace's own route (memory, fs) or straight to the store (S3). */
  ownRoute: boolean;
  make(t: { after(fn: () => unknown): void }): { blobs: BlobPort; clock?: ClockPort };
}

const stores: Store[] = [
  { name: 'memory', ownRoute: true, make: () => ({ blobs: memoryBlobs() }) },
  {
    name: 'fs',
    ownRoute: true,
    make: (t) => {
      const root = mkdtempSync(join(tmpdir(), 'marketkit-integrity-'));
      t.after(() => rmSync(root, { recursive: true, force: true }));
      return { blobs: fsBlobs({ root }) };
    },
  },
  {
    name: 's3',
    ownRoute: false,
    make: () => {
      // s3rver judges presigned URLs by the real clock.
      const clock: ClockPort = { now: () => Date.now() };
      return { clock, blobs: s3Blobs({ endpoint: s3.endpoint, bucket: s3.bucket, pathStyle: true, prefix: `integrity-${crypto.randomUUID()}`, ...s3rverCredentials, clock, env: {} }) };
    },
  },
];

async function serverOn(store: Store, t: { after(fn: () => unknown): void }, options: Parameters<typeof startServer>[0] = {}) {
  const { blobs, clock } = store.make(t);
  const server = await startServer({ blobs, ...(clock ? { clock } : {}), ...options });
  t.after(() => server.close());
  return server;
}

for (const store of stores) {
  describe(`confirmed bytes never change (${store.name})`, () => {
    test('a replayed PUT to a file or image URL after confirm, submit, approve and suspension changes nothing', async (t) => {
      const server = await serverOn(store, t);
      const seller = await server.account();
      const client = as(server, seller.token);
      const id = (await client.post('/assets', validAsset())).body.id;
      const original = crypto.getRandomValues(new Uint8Array(3000));
      const file = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip' })).body;
      assert.equal((await put(file.signed_url, original)).status, 200);
      assert.equal((await client.post(`/assets/${id}/confirm-file`, { storage_path: file.storage_path, file_size: 3000 })).status, 200);
      const image = (await client.post(`/assets/${id}/images/upload-url`, { filename: 'cover.webp' })).body;
      assert.equal((await put(image.signed_url, webpBytes, 'image/webp')).status, 200);
      assert.equal((await client.post(`/assets/${id}/confirm-image`, { public_url: image.public_url })).status, 201);

      const replay = async (stage: string) => {
        const fileReplay = await put(file.signed_url, new Uint8Array(5000).fill(7));
        const imageReplay = await put(image.signed_url, pngBytes, 'image/png');
        if (store.ownRoute) {
          // The marketplace's own route refuses a used URL outright.
          assert.equal(fileReplay.status, 403, `${stage}: the file URL is refused`);
          assert.equal((await fileReplay.json()).code, 'FORBIDDEN');
          assert.equal(imageReplay.status, 403, `${stage}: the image URL is refused`);
        } else {
          // S3 cannot revoke a presigned URL: the replay lands on the staging key, which nothing serves.
          await fileReplay.arrayBuffer();
          await imageReplay.arrayBuffer();
        }
        assert.deepEqual(await readBlob(server.marketplace.ports.blobs, file.storage_path), original, `${stage}: the file's bytes are the reviewed ones`);
        const detail = (await client.get(`/assets/${id}`)).body;
        assert.equal(detail.file.file_size, 3000, `${stage}: the record is unchanged`);
        const served = await fetch(detail.images[0].public_url);
        assert.equal(served.status, 200);
        assert.deepEqual(new Uint8Array(await served.arrayBuffer()), webpBytes, `${stage}: the public image is the reviewed one`);
        // And confirming the replayed bytes is no way around it.
        const reconfirm = await client.post(`/assets/${id}/confirm-file`, { storage_path: file.storage_path, file_size: 5000 });
        assert.ok(reconfirm.status >= 400 && reconfirm.status < 500, `${stage}: confirm of the replay is refused (${reconfirm.status})`);
      };

      await replay('after confirm');
      assert.equal((await client.post(`/assets/${id}/submit`)).status, 200);
      await replay('after submit');
      await server.marketplace.moderation.approve(id);
      await replay('after approval');
      await server.marketplace.admin.updateAccount(seller.id, { is_suspended: true });
      const stillServed = await fetch((await server.marketplace.ports.storage.listImages(id))[0]!.public_url);
      assert.deepEqual(new Uint8Array(await stillServed.arrayBuffer()), webpBytes);
      assert.deepEqual(await readBlob(server.marketplace.ports.blobs, file.storage_path), original);
      // (The suspended seller's own calls are 403 now; the replays still change nothing.)
      await put(file.signed_url, new Uint8Array(10));
      assert.deepEqual(await readBlob(server.marketplace.ports.blobs, file.storage_path), original, 'after suspension');
    });

    test('an unused URL stops working once its listing leaves draft, or its account is suspended or restricted', async (t) => {
      const server = await serverOn(store, t);
      const seller = await server.account();
      const client = as(server, seller.token);
      const id = (await client.post('/assets', validAsset())).body.id;
      const first = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip' })).body;
      const unused = (await client.post(`/assets/${id}/upload-url`, { filename: 'later.zip' })).body;
      assert.equal((await put(first.signed_url, new Uint8Array(100))).status, 200);
      assert.equal((await client.post(`/assets/${id}/confirm-file`, { storage_path: first.storage_path, file_size: 100 })).status, 200);
      assert.equal((await client.post(`/assets/${id}/submit`)).status, 200);
      const late = await put(unused.signed_url, new Uint8Array(200));
      if (store.ownRoute) {
        assert.equal(late.status, 403);
        assert.match((await late.json()).error, /no longer works: its listing is pending/);
      } else {
        await late.arrayBuffer();
      }
      const confirmed = await client.post(`/assets/${id}/confirm-file`, { storage_path: unused.storage_path, file_size: 200 });
      assert.equal(confirmed.status, 409, 'a pending listing takes no new file');
      assert.equal((await client.get(`/assets/${id}`)).body.file.file_size, 100);

      if (!store.ownRoute) return;
      for (const change of [{ is_suspended: true }, { is_restricted: true }] as const) {
        const other = await server.account();
        const draft = (await as(server, other.token).post('/assets', validAsset())).body.id;
        const issued = (await as(server, other.token).post(`/assets/${draft}/upload-url`, { filename: 'pack.zip' })).body;
        await server.marketplace.admin.updateAccount(other.id, change);
        const refused = await put(issued.signed_url, new Uint8Array(10));
        assert.equal(refused.status, 403);
        assert.match((await refused.json()).error, change.is_suspended ? /its account is suspended/ : /its account is restricted/);
      }
    });
  });
}

describe('the upload sweep and the PUT/DELETE race (fs, on disk)', () => {
  test('uploads never confirmed are gone once their URL expired past the grace period; confirmed ones stay', async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'marketkit-sweep-'));
    t.after(() => rmSync(root, { recursive: true, force: true }));
    const server = await startServer({ blobs: fsBlobs({ root }), uploadUrlTtlSeconds: 600, uploadGraceSeconds: 300 });
    t.after(() => server.close());
    const client = as(server, server.seller.token);
    const id = (await client.post('/assets', validAsset())).body.id;
    const kept = (await client.post(`/assets/${id}/upload-url`, { filename: 'kept.zip' })).body;
    assert.equal((await put(kept.signed_url, new Uint8Array(100))).status, 200);
    assert.equal((await client.post(`/assets/${id}/confirm-file`, { storage_path: kept.storage_path, file_size: 100 })).status, 200);
    for (let i = 0; i < 3; i++) {
      const abandoned = (await client.post(`/assets/${id}/upload-url`, { filename: `abandoned-${i}.zip` })).body;
      assert.equal((await put(abandoned.signed_url, new Uint8Array(25_000))).status, 200);
    }
    assert.equal(filesUnder(join(root, 'objects', 'staging')).length, 3, 'three uploads wait for confirm');

    server.clock.advance(600_000 + 299_000);
    assert.deepEqual(await server.marketplace.maintenance.sweepUploads(), { ran: true, removed: 0, leftovers: 0, superseded: 0 }, 'within the grace period nothing goes');
    assert.equal(filesUnder(join(root, 'objects', 'staging')).length, 3);
    server.clock.advance(2000);
    assert.deepEqual(await server.marketplace.maintenance.sweepUploads(), { ran: true, removed: 3, leftovers: 0, superseded: 0 });
    assert.deepEqual(filesUnder(join(root, 'objects', 'staging')), []);
    assert.equal(filesUnder(join(root, 'objects', 'assets')).length, 1, 'the confirmed file stays');
    assert.equal((await client.get(`/assets/${id}`)).body.file.file_size, 100);
  });

  test('the sweep runs on one instance at a time', async (t) => {
    const server = await startServer();
    t.after(() => server.close());
    const { storage } = server.marketplace.ports;
    assert.equal(await storage.tryLease('upload-sweep', 'another-instance', server.clock.now(), 60_000), true);
    assert.deepEqual(await server.marketplace.maintenance.sweepUploads(), { ran: false, removed: 0, leftovers: 0, superseded: 0 });
    server.clock.advance(61_000);
    assert.equal((await server.marketplace.maintenance.sweepUploads()).ran, true, 'the lease expired: this instance sweeps');
  });

  test('a PUT racing a DELETE of its listing leaves no blob (50 times)', async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'marketkit-race-'));
    t.after(() => rmSync(root, { recursive: true, force: true }));
    const server = await startServer({ blobs: fsBlobs({ root }) });
    t.after(() => server.close());
    const client = as(server, server.seller.token);
    const body = new Uint8Array(256 * 1024).fill(1);
    for (let round = 0; round < 50; round++) {
      const id = (await client.post('/assets', validAsset())).body.id;
      const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip' })).body;
      // Started together; which one wins varies from round to round.
      const [uploaded, deleted] = await Promise.all([put(issued.signed_url, body).then(async (r) => (await r.arrayBuffer(), r.status)), client.delete(`/assets/${id}`)]);
      assert.equal(deleted.status, 200);
      assert.ok([200, 404].includes(uploaded), `round ${round}: the PUT answered ${uploaded}`);
    }
    assert.deepEqual(filesUnder(join(root, 'objects')), [], 'no blob outlives its listing');
    assert.deepEqual(await server.marketplace.ports.storage.listUploadGarbage(new Date(server.clock.now() + 864e5).toISOString(), 10), [], 'and nothing is left for the sweep');
  });

  test('a listing deleted without its blobs (a crash in between) is cleaned by the sweep', async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'marketkit-crash-'));
    t.after(() => rmSync(root, { recursive: true, force: true }));
    const server = await startServer({ blobs: fsBlobs({ root }) });
    t.after(() => server.close());
    const client = as(server, server.seller.token);
    const id = (await client.post('/assets', validAsset())).body.id;
    const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip' })).body;
    assert.equal((await put(issued.signed_url, new Uint8Array(100))).status, 200);
    assert.equal((await client.post(`/assets/${id}/confirm-file`, { storage_path: issued.storage_path, file_size: 100 })).status, 200);
    // The records go, as the DELETE's first step does; the process dies before the blobs follow.
    const { storage } = server.marketplace.ports;
    assert.equal((await storage.deleteAsset(id, (await storage.getAsset(id))!.revision)).outcome, 'deleted');
    assert.equal(filesUnder(join(root, 'objects')).length, 1);
    assert.deepEqual(await server.marketplace.maintenance.sweepUploads(), { ran: true, removed: 1, leftovers: 0, superseded: 0 });
    assert.deepEqual(filesUnder(join(root, 'objects')), []);
  });
});

describe('storage quota', () => {
  test('an account past its quota gets 413 STORAGE_QUOTA_EXCEEDED at the PUT; a file being replaced does not count against its replacement, and frees its bytes', async (t) => {
    const server = await startServer({ storageQuotaBytes: 1000 });
    t.after(() => server.close());
    const client = as(server, server.seller.token);
    const id = (await client.post('/assets', validAsset())).body.id;
    const first = (await client.post(`/assets/${id}/upload-url`, { filename: 'a.zip' })).body;
    assert.equal((await put(first.signed_url, new Uint8Array(800))).status, 200);
    assert.equal((await client.post(`/assets/${id}/confirm-file`, { storage_path: first.storage_path, file_size: 800 })).status, 200);
    const other = (await client.post('/assets', validAsset())).body.id;
    const second = (await client.post(`/assets/${other}/upload-url`, { filename: 'b.zip' })).body;
    const refused = await put(second.signed_url, new Uint8Array(300));
    assert.equal(refused.status, 413);
    const body = await refused.json();
    assert.equal(body.code, 'STORAGE_QUOTA_EXCEEDED');
    assert.match(body.error, /storage quota of 1000 bytes/);
    // The refused PUT kept nothing and did not use the URL up: a smaller file fits.
    assert.equal((await put(second.signed_url, new Uint8Array(150))).status, 200);
    assert.equal((await client.post(`/assets/${other}/confirm-file`, { storage_path: second.storage_path, file_size: 150 })).status, 200);
    // The file being replaced does not count against its replacement: 150 + 850 fits, 800 aside.
    const third = (await client.post(`/assets/${id}/upload-url`, { filename: 'c.zip' })).body;
    assert.equal((await put(third.signed_url, new Uint8Array(850))).status, 200);
    assert.equal((await client.post(`/assets/${id}/confirm-file`, { storage_path: third.storage_path, file_size: 850 })).status, 200);
    assert.equal(await server.marketplace.ports.storage.storageUse(server.seller.id), 1000, 'the replaced file no longer counts');
  });
});

describe('a restricted account (contract, Accounts)', () => {
  test('reads its listings and deletes its drafts, but cannot create, change, upload to or submit a listing: 403 ACCOUNT_RESTRICTED', async (t) => {
    const server = await startServer();
    t.after(() => server.close());
    const seller = await server.account();
    const client = as(server, seller.token);
    const draft = (await client.post('/assets', validAsset())).body.id;
    const live = (await client.post('/assets', validAsset())).body.id;
    const issued = (await client.post(`/assets/${live}/upload-url`, { filename: 'pack.zip' })).body;
    assert.equal((await put(issued.signed_url, new Uint8Array(10))).status, 200);
    assert.equal((await client.post(`/assets/${live}/confirm-file`, { storage_path: issued.storage_path, file_size: 10 })).status, 200);
    assert.equal((await client.post(`/assets/${live}/submit`)).status, 200);
    await server.marketplace.moderation.approve(live);
    await server.marketplace.admin.updateAccount(seller.id, { is_restricted: true });

    const refusals = [
      await client.post('/assets', validAsset()),
      await client.patch(`/assets/${live}`, { title: 'Changed behind review' }),
      await client.patch(`/assets/${draft}`, { description: 'x' }),
      await client.post(`/assets/${draft}/upload-url`, { filename: 'pack.zip' }),
      await client.post(`/assets/${live}/images/upload-url`, { filename: 'cover.webp' }),
      await client.post(`/assets/${draft}/confirm-file`, { storage_path: issued.storage_path, file_size: 10 }),
      await client.post(`/assets/${draft}/confirm-image`, { public_url: 'https://market.example/x.webp' }),
      await client.post(`/assets/${draft}/submit`),
      await client.post('/assets/batch', { assets: [validAsset()] }),
    ];
    for (const refused of refusals) assert.deepEqual([refused.status, refused.body.code], [403, 'ACCOUNT_RESTRICTED'], JSON.stringify(refused.body));
    assert.equal((await client.get(`/assets/${live}`)).body.title, validAsset().title, 'the live listing is unchanged');
    assert.equal((await client.get('/assets')).status, 200);
    assert.equal((await client.get('/me')).body.is_restricted, true);
    assert.equal((await client.delete(`/assets/${draft}`)).status, 200, 'a draft can still be deleted');
  });
});
