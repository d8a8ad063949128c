/**
 * Pentest finding: unconfirmed images of draft and private listings were served publicly by
 * GET /api/v1/blobs/assets/{id}/images/... Now an image is served only once it is a confirmed image
 * of its listing (the storage port's image records decide, never the blob's existence); a listing's
 * confirmed images are public whatever its status or visibility (docs/security.md, "Images").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { memoryBlobs } from '../../adapters/memory/index.js';
import type { BlobPort } from '../../core/ports/blobs.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { as, pngBytes, putSigned, startServer, validAsset, type TestServer } from '../fixtures/server.js';

for (const store of ['memory', 'fs'] as const) {
  describe(`image reads on the ${store} store`, () => {
    let server: TestServer;
    /** When set, the store's delete fails (a store that is down while a listing is deleted). */
    let failDeletes = false;
    const root = mkdtempSync(join(tmpdir(), 'marketkit-images-'));
    after(() => rmSync(root, { recursive: true, force: true }));
    before(async () => {
      const inner: BlobPort = store === 'fs' ? fsBlobs({ root }) : memoryBlobs();
      const blobs = Object.assign(Object.create(inner) as BlobPort, {
        delete: (path: string) => (failDeletes ? Promise.reject(new Error('store down')) : inner.delete(path)),
      });
      server = await startServer({ blobs });
    });
    after(() => server.close());

    async function issueAndPut(assetId: string) {
      const client = as(server, server.seller.token);
      const issued = await client.post(`/assets/${assetId}/images/upload-url`, { filename: 'shot.png' });
      assert.equal(issued.status, 200, JSON.stringify(issued.body));
      assert.equal((await putSigned(issued.body.signed_url, pngBytes, 'image/png')).status, 200);
      return issued.body as { public_url: string; storage_path: string };
    }

    test('an uploaded image is not served before confirm-image, and is once confirmed, on a draft and on a private listing', async () => {
      const client = as(server, server.seller.token);
      for (const visibility of ['public', 'private'] as const) {
        const created = await client.post('/assets', validAsset({ visibility }));
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const issued = await issueAndPut(created.body.id);
        assert.equal((await fetch(issued.public_url)).status, 404, `${visibility} draft: unconfirmed`);
        const confirmed = await client.post(`/assets/${created.body.id}/confirm-image`, { public_url: issued.public_url });
        assert.equal(confirmed.status, 201, JSON.stringify(confirmed.body));
        const served = await fetch(issued.public_url);
        assert.equal(served.status, 200, `${visibility} draft: confirmed`);
        assert.deepEqual(new Uint8Array(await served.arrayBuffer()), pngBytes);
      }
    });

    test('bytes at an image path that no confirmed image names are not served', async () => {
      const client = as(server, server.seller.token);
      const created = await client.post('/assets', validAsset());
      const path = `assets/${created.body.id}/images/${crypto.randomUUID()}/stray.png`;
      await server.marketplace.ports.blobs.put(path, (async function* () { yield pngBytes; })(), { contentType: 'image/png', maxBytes: 1024 });
      assert.ok(await server.marketplace.ports.blobs.head(path), 'the bytes are in the store');
      const answer = await fetch(`${server.api}/blobs/${path}`);
      assert.equal(answer.status, 404);
      assert.equal(((await answer.json()) as { code: string }).code, 'NOT_FOUND');
    });

    test("a deleted listing's images are not served, even when the store could not remove their bytes yet", async () => {
      const client = as(server, server.seller.token);
      const created = await client.post('/assets', validAsset());
      const issued = await issueAndPut(created.body.id);
      assert.equal((await client.post(`/assets/${created.body.id}/confirm-image`, { public_url: issued.public_url })).status, 201);
      assert.equal((await fetch(issued.public_url)).status, 200);
      failDeletes = true;
      try {
        assert.equal((await client.delete(`/assets/${created.body.id}`)).status, 200);
      } finally {
        failDeletes = false;
      }
      assert.ok(await server.marketplace.ports.blobs.head(issued.storage_path), 'the bytes are still in the store (the sweep removes them later)');
      assert.equal((await fetch(issued.public_url)).status, 404);
    });
  });
}
