/**
 * A version's new gallery (docs/moderation.md, "Versions"): images uploaded under the version while
 * the live listing keeps showing its own, shown to the moderator beside them, swapped in with the
 * version's approval, the replaced ones kept for a rollback and removed after the retention, and in
 * the seller's quota while kept. On memory, SQLite and PostgreSQL, through REST and the exported API.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { memoryBlobs } from '../../adapters/memory/index.js';
import { needs } from '../fixtures/parts.js';
import { as, putSigned, uploadFile, validAsset, type TestServer } from '../fixtures/server.js';
import { startServerOn, stopStores, storeNames } from '../fixtures/stores.js';

const pg = needs('postgresql');
after(stopStores);

const day = 24 * 3600 * 1000;
const serviceKey = 'version-gallery-service-key-0123456789abcdef';

/** The admin surface, as a moderator's tool calls it. */
async function admin(server: TestServer, path: string) {
  const res = await fetch(`${server.url}/api/admin${path}`, { headers: { authorization: `Bearer ${serviceKey}` } });
  assert.equal(res.status, 200, path);
  return res.json();
}
const png = (n: number) => new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Uint8Array(40 + n).fill(n)]);
const webp = (n: number) => new Uint8Array([...new TextEncoder().encode('RIFF'), 0, 0, 0, 0, ...new TextEncoder().encode('WEBP'), ...new Uint8Array(40 + n).fill(n)]);

/** One image through a gallery's three steps (upload-url, PUT, confirm-image) under `base` (a listing's or a version's path). */
async function addImage(server: TestServer, base: string, name: string, bytes: Uint8Array, type: string) {
  const seller = as(server, server.seller.token);
  const issued = await seller.post(`${base}/images/upload-url`, { filename: name });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  assert.equal((await putSigned(issued.body.signed_url, bytes, type)).status, 200);
  const confirmed = await seller.post(`${base}/confirm-image`, { public_url: issued.body.public_url });
  assert.equal(confirmed.status, 201, JSON.stringify(confirmed.body));
  return confirmed.body as { id: string; public_url: string; storage_path: string; is_primary: boolean; position: number };
}

const served = async (url: string) => (await fetch(url)).status;
const paths = (images: { storage_path: string }[]) => images.map((image) => image.storage_path);

for (const store of storeNames) {
  const { test: storeTest } = store === 'postgres' ? pg : { test };
  describe(`a version's gallery on ${store}`, () => {
    storeTest('uploaded under the version, shown in review, swapped in on approval, back on rollback, removed after the retention', async () => {
      const blobs = memoryBlobs();
      const server = await startServerOn(store, { blobs, serviceKey, supersededRetentionSeconds: 30 * 24 * 3600 });
      try {
        const seller = as(server, server.seller.token);
        const id = (await seller.post('/assets', validAsset())).body.id as string;
        const old = [await addImage(server, `/assets/${id}`, 'a.png', png(1), 'image/png'), await addImage(server, `/assets/${id}`, 'b.webp', webp(2), 'image/webp')];
        await uploadFile(server, server.seller.token, id, new Uint8Array(30).fill(1));
        assert.equal((await seller.post(`/assets/${id}/submit`)).status, 200);
        await server.marketplace.moderation.approve(id);
        const use = async () => (await admin(server, `/accounts/${server.seller.id}`)).storage_bytes as number;

        const vid = (await seller.post(`/assets/${id}/versions`, { version: '1.1.0' })).body.id as string;
        const base = `/assets/${id}/versions/${vid}`;
        const issued = (await seller.post(`${base}/upload-url`, { filename: 'next.zip' })).body;
        assert.equal((await putSigned(issued.signed_url, new Uint8Array(30).fill(2), 'application/zip')).status, 200);
        assert.equal((await seller.post(`${base}/confirm-file`, { storage_path: issued.storage_path, file_size: 30 })).status, 200);
        const before = await use();
        const fresh = [await addImage(server, base, 'c.webp', webp(3), 'image/webp'), await addImage(server, base, 'd.png', png(4), 'image/png')];
        const dropped = await addImage(server, base, 'e.png', png(5), 'image/png');
        assert.equal(await use(), before + [webp(3), png(4), png(5)].reduce((sum, b) => sum + b.byteLength, 0), 'the version’s images count against the quota');
        assert.ok(fresh.every((image) => image.storage_path.includes(`/versions/${vid}/images/`)), 'under the version’s own folder');
        assert.deepEqual([fresh[0]!.is_primary, fresh[1]!.position], [true, 1]);

        // Removed from the version's gallery: its bytes go, the others keep their order.
        const removed = await seller.delete(`${base}/images/${dropped.id}`);
        assert.deepEqual([removed.status, paths(removed.body.gallery)], [200, paths(fresh)]);
        assert.equal(await blobs.head(dropped.storage_path), null);
        assert.equal((await seller.delete(`${base}/images/${dropped.id}`)).status, 404);
        const wrong = await seller.post(`${base}/confirm-image`, { public_url: old[0]!.public_url });
        assert.deepEqual([wrong.status, wrong.body.code, /public_url/.test(wrong.body.error)], [400, 'INVALID_INPUT', true], 'the listing’s image is not the version’s');
        // A version's image is neither the listing's image nor the version's file.
        const stray = (await seller.post(`${base}/images/upload-url`, { filename: 'stray.png' })).body;
        await putSigned(stray.signed_url, png(6), 'image/png');
        const asListing = await seller.post(`/assets/${id}/confirm-image`, { public_url: stray.public_url });
        assert.deepEqual([asListing.status, asListing.body.code], [400, 'INVALID_INPUT']);
        const asFile = await seller.post(`${base}/confirm-file`, { storage_path: stray.storage_path, file_size: png(6).byteLength });
        assert.deepEqual([asFile.status, asFile.body.code], [400, 'INVALID_INPUT']);

        // Until approval the listing shows its own images; the version's are served for its review.
        assert.deepEqual(paths((await seller.get(`/assets/${id}`)).body.images), paths(old));
        assert.deepEqual([...(await Promise.all([...old, ...fresh].map((image) => served(image.public_url))))], [200, 200, 200, 200]);
        assert.equal(await served(dropped.public_url), 404);
        const reviewed = await admin(server, `/versions/${vid}/review`);
        assert.deepEqual([paths(reviewed.gallery.live), paths(reviewed.gallery.proposed)], [paths(old), paths(fresh)]);

        assert.equal((await seller.post(`${base}/submit`)).status, 200);
        await server.marketplace.moderation.versions.approve(vid);
        const live = (await seller.get(`/assets/${id}`)).body;
        assert.deepEqual([paths(live.images), live.images.map((i: { is_primary: boolean }) => i.is_primary)], [paths(fresh), [true, false]]);
        assert.deepEqual(await Promise.all(fresh.map((image) => served(image.public_url))), [200, 200], 'served as the listing’s now');
        assert.ok(await blobs.head(old[0]!.storage_path), 'the replaced images are kept for a rollback');

        assert.equal((await server.marketplace.moderation.versions.rollback(id)).version, '1.0.0');
        assert.deepEqual(paths((await seller.get(`/assets/${id}`)).body.images), paths(old), 'the rollback brings the old gallery back');
        assert.deepEqual(await Promise.all(old.map((image) => served(image.public_url))), [200, 200]);

        // A version without a gallery keeps the listing's; the one rolled back from (1.1.0) is removed after the retention, gallery and all.
        const plain = (await seller.post(`/assets/${id}/versions`, { version: '1.2.0' })).body.id as string;
        const next = (await seller.post(`/assets/${id}/versions/${plain}/upload-url`, { filename: 'p.zip' })).body;
        await putSigned(next.signed_url, new Uint8Array(30).fill(3), 'application/zip');
        await seller.post(`/assets/${id}/versions/${plain}/confirm-file`, { storage_path: next.storage_path, file_size: 30 });
        await seller.post(`/assets/${id}/versions/${plain}/submit`);
        await server.marketplace.moderation.versions.approve(plain);
        assert.deepEqual(paths((await seller.get(`/assets/${id}`)).body.images), paths(old));
        server.clock.advance(31 * day);
        const held = await use();
        assert.equal((await server.marketplace.maintenance.sweepUploads()).superseded, 1, '1.1.0 goes; 1.0.0, what 1.2.0 rolls back to, stays');
        for (const image of fresh) assert.equal(await blobs.head(image.storage_path), null, 'the superseded gallery’s bytes are gone');
        for (const image of old) assert.ok(await blobs.head(image.storage_path), 'the live gallery’s stay');
        // Out of the quota too, with the stray image never confirmed (its URL long expired).
        assert.equal(await use(), held - 30 - webp(3).byteLength - png(4).byteLength - png(6).byteLength, 'and left the quota');
        assert.deepEqual(await Promise.all(old.map((image) => served(image.public_url))), [200, 200]);
      } finally {
        await server.close();
      }
    });

    storeTest('a withdrawn version’s gallery is removed; a gallery holds at most 10 images', async () => {
      const blobs = memoryBlobs();
      const server = await startServerOn(store, { blobs });
      try {
        const seller = as(server, server.seller.token);
        const id = (await seller.post('/assets', validAsset())).body.id as string;
        await uploadFile(server, server.seller.token, id, new Uint8Array(10).fill(1));
        await seller.post(`/assets/${id}/submit`);
        await server.marketplace.moderation.approve(id);
        const vid = (await seller.post(`/assets/${id}/versions`, { version: '2.0.0' })).body.id as string;
        const base = `/assets/${id}/versions/${vid}`;
        const images = [];
        for (let n = 0; n < 10; n++) images.push(await addImage(server, base, `${n}.png`, png(n), 'image/png'));
        const issued = (await seller.post(`${base}/images/upload-url`, { filename: 'eleven.png' })).body;
        await putSigned(issued.signed_url, png(11), 'image/png');
        const over = await seller.post(`${base}/confirm-image`, { public_url: issued.public_url });
        assert.deepEqual([over.status, over.body.code], [409, 'CONFLICT']);
        assert.equal(await blobs.head(issued.storage_path), null, 'the refused image is not kept');
        const withdrawn = await seller.post(`${base}/withdraw`);
        assert.deepEqual([withdrawn.status, withdrawn.body.gallery], [200, null]);
        for (const image of images) assert.equal(await blobs.head(image.storage_path), null);
      } finally {
        await server.close();
      }
    });
  });
}
