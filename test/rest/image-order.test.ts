/**
 * A listing's gallery in a new order (PUT /assets/{id}/images/order, MCP arrange_images): the whole
 * gallery named once, the first the primary; the refusals a seller relies on, over REST and MCP.
 * And a version's new gallery (PUT .../versions/{version_id}/images/order), the same way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { memoryStorage } from '../../adapters/memory/index.js';
import { callTool } from '../fixtures/mcp.js';
import { as, assetWithFile, call, forceStatus, pngBytes, putSigned, startServer, uploadImage, validAsset, type TestServer } from '../fixtures/server.js';

/** Set by a test: runs inside arrangeImages, between the operation's read and the store's write. */
let meanwhile: (() => Promise<void>) | null = null;
const storage = memoryStorage();
const arrange = storage.arrangeImages.bind(storage);
storage.arrangeImages = async (...args) => {
  await meanwhile?.();
  return arrange(...args);
};

let server: TestServer;
before(async () => {
  server = await startServer({ storage });
});
after(() => server.close());

const order = (id: string, imageIds: unknown, token = server.seller.token) => call(server, 'PUT', `/assets/${id}/images/order`, { token, body: { image_ids: imageIds } });

/** A draft listing with `count` confirmed images: its id and the image ids in gallery order. */
async function gallery(count: number, token = server.seller.token): Promise<{ id: string; images: string[] }> {
  const id: string = (await as(server, token).post('/assets', validAsset())).body.id;
  const images: string[] = [];
  for (let i = 0; i < count; i++) images.push((await uploadImage(server, token, id)).body.image_id);
  return { id, images };
}

/** The listing's images as GET shows them: [id, position, is_primary], in order. */
const shown = async (id: string) => ((await as(server, server.seller.token).get(`/assets/${id}`)).body.images as any[]).map((i) => [i.id, i.position, i.is_primary]);

describe('PUT /assets/{id}/images/order', () => {
  test('puts the images in the order given; the first becomes the only primary, and GET shows the same', async () => {
    const { id, images: [a, b, c] } = await gallery(3);
    const arranged = await order(id, [c, a, b]);
    assert.equal(arranged.status, 200);
    assert.deepEqual(arranged.body.images.map((i: any) => [i.id, i.position, i.is_primary]), [[c, 0, true], [a, 1, false], [b, 2, false]]);
    assert.deepEqual(await shown(id), [[c, 0, true], [a, 1, false], [b, 2, false]]);
    // "Make primary" is moving one to the front; the others keep their order.
    assert.equal((await order(id, [b, c, a])).status, 200);
    assert.deepEqual(await shown(id), [[b, 0, true], [c, 1, false], [a, 2, false]]);
    // An image confirmed afterwards comes last.
    const d = (await uploadImage(server, server.seller.token, id)).body;
    assert.deepEqual([d.position, d.is_primary], [3, false]);
    // The same order again answers the gallery as it is.
    assert.deepEqual((await order(id, [b, c, a, d.id])).body.images.map((i: any) => i.id), [b, c, a, d.id]);
  });

  test('a duplicate, an unknown id, a missing image or no list at all is 400 INVALID_INPUT naming image_ids, and changes nothing', async () => {
    const { id, images: [a, b, c] } = await gallery(3);
    const cases: [unknown, RegExp][] = [
      [[a, b, b], /more than once/],
      [[a, b, c, crypto.randomUUID()], /not an image of this listing/],
      [[a, b], new RegExp(`missing: ${c}`)],
      [[], new RegExp(`missing: ${a}, ${b}, ${c}`)],
      ['not a list', /image_ids/],
    ];
    for (const [ids, message] of cases) {
      const refused = await order(id, ids);
      assert.equal(refused.status, 400, JSON.stringify(ids));
      assert.equal(refused.body.code, 'INVALID_INPUT');
      assert.match(refused.body.error, /image_ids/);
      assert.match(refused.body.error, message);
    }
    assert.deepEqual(await shown(id), [[a, 0, true], [b, 1, false], [c, 2, false]]);
  });

  test("another seller's listing is 404; a token without assets:write is 403; a listing in review is 409 INVALID_STATUS; a published one may be arranged", async () => {
    const { id, images: [a, b] } = await gallery(2);
    assert.equal((await order(id, [b, a], server.other.token)).status, 404);
    assert.equal((await order(crypto.randomUUID(), [b, a])).status, 404);
    const reader = await server.account({}, ['assets:read']);
    const mine = await gallery(0);
    assert.equal((await order(mine.id, [], reader.token)).status, 403);

    const listed = await assetWithFile(server, server.seller.token);
    const [x, y] = [(await uploadImage(server, server.seller.token, listed.id)).body.image_id, (await uploadImage(server, server.seller.token, listed.id)).body.image_id];
    assert.equal((await as(server, server.seller.token).post(`/assets/${listed.id}/submit`)).status, 200);
    const pending = await order(listed.id, [y, x]);
    assert.deepEqual([pending.status, pending.body.code], [409, 'INVALID_STATUS']);
    await forceStatus(server, listed.id, 'published');
    assert.equal((await order(listed.id, [y, x])).status, 200);
    assert.deepEqual((await shown(listed.id)).map(([image]) => image), [y, x]);
  });

  test('an image added between the read and the write is 409 CONFLICT "the gallery changed": no image lost, one primary', async () => {
    const { id, images: [a, b] } = await gallery(2);
    meanwhile = async () => {
      meanwhile = null;
      await uploadImage(server, server.seller.token, id);
    };
    const raced = await order(id, [b, a]);
    assert.deepEqual([raced.status, raced.body.code], [409, 'CONFLICT']);
    assert.match(raced.body.error, /gallery changed/);
    const after = await shown(id);
    assert.equal(after.length, 3);
    assert.deepEqual(after.filter(([, , primary]) => primary).map(([image]) => image), [a]);
    assert.deepEqual(after.map(([, position]) => position), [0, 1, 2]);
  });
});

describe('MCP arrange_images', () => {
  test('answers what REST answers; a refusal is an isError result with the REST error body', async () => {
    const { id, images: [a, b] } = await gallery(2);
    const result = (await callTool(server, server.seller.token, 'arrange_images', { asset_id: id, image_ids: [b, a] })).body.result;
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent.images.map((i: any) => [i.id, i.is_primary]), [[b, true], [a, false]]);
    assert.deepEqual(result.structuredContent, (await order(id, [b, a])).body);
    const refused = (await callTool(server, server.seller.token, 'arrange_images', { asset_id: id, image_ids: [b] })).body.result;
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent.code, 'INVALID_INPUT');
    assert.match(refused.structuredContent.error, new RegExp(`image_ids must name every image .*missing: ${a}`));
  });
});

describe("a version's new gallery: PUT /assets/{id}/versions/{version_id}/images/order", () => {
  test('puts it in the order given (the first the primary when it goes live); the same refusals; MCP arrange_version_images answers the same', async () => {
    const client = as(server, server.seller.token);
    const { id } = await assetWithFile(server, server.seller.token);
    assert.equal((await client.post(`/assets/${id}/submit`)).status, 200);
    await server.marketplace.moderation.approve(id);
    const vid: string = (await client.post(`/assets/${id}/versions`, { version: '2.0.0' })).body.id;
    const base = `/assets/${id}/versions/${vid}`;
    const reorder = (imageIds: unknown, token = server.seller.token) => call(server, 'PUT', `${base}/images/order`, { token, body: { image_ids: imageIds } });
    // No gallery of its own yet: the empty list is the whole of it, and nothing changes.
    assert.deepEqual([(await reorder([])).status, (await reorder([])).body.gallery], [200, null]);
    const images: string[] = [];
    for (let i = 0; i < 3; i++) {
      const issued = (await client.post(`${base}/images/upload-url`, { filename: 'shot.png' })).body;
      assert.equal((await putSigned(issued.signed_url, pngBytes, 'image/png')).status, 200);
      images.push((await client.post(`${base}/confirm-image`, { public_url: issued.public_url })).body.id);
    }
    const [a, b, c] = images as [string, string, string];
    const arranged = await reorder([c, a, b]);
    assert.equal(arranged.status, 200);
    assert.deepEqual(arranged.body.gallery.map((i: any) => [i.id, i.position, i.is_primary]), [[c, 0, true], [a, 1, false], [b, 2, false]]);
    assert.deepEqual((await client.get(base)).body.gallery.map((i: any) => i.id), [c, a, b]);
    for (const [ids, message] of [[[c, a], /missing: /], [[c, c, a, b], /more than once/], [[c, a, b, id], /not an image of this version’s gallery/]] as const) {
      const refused = await reorder(ids);
      assert.deepEqual([refused.status, refused.body.code], [400, 'INVALID_INPUT']);
      assert.match(refused.body.error, /^image_ids /);
      assert.match(refused.body.error, message);
    }
    assert.equal((await reorder([a, b, c], server.other.token)).status, 404);
    const tool = (await callTool(server, server.seller.token, 'arrange_version_images', { asset_id: id, version_id: vid, image_ids: [b, c, a] })).body.result;
    assert.equal(tool.isError, undefined);
    assert.deepEqual(tool.structuredContent, (await client.get(base)).body);
    assert.deepEqual(tool.structuredContent.gallery.map((i: any) => [i.id, i.is_primary]), [[b, true], [c, false], [a, false]]);
    // Submitted (with its file): the version takes no change until it is decided.
    const issued = (await client.post(`${base}/upload-url`, { filename: 'v2.zip' })).body;
    assert.equal((await putSigned(issued.signed_url, 'PK version two', 'application/zip')).status, 200);
    assert.equal((await client.post(`${base}/confirm-file`, { storage_path: issued.storage_path, file_size: 14 })).status, 200);
    assert.equal((await client.post(`${base}/submit`)).status, 200);
    const pending = await reorder([a, b, c]);
    assert.deepEqual([pending.status, pending.body.code], [409, 'INVALID_STATUS']);
    // The live listing's own gallery was never touched.
    assert.deepEqual((await client.get(`/assets/${id}`)).body.images, []);
  });
});
