import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hostedTools } from '../../core/mcp/tools.js';
import { startFaultProxy } from '../client/fault-proxy.js';
import { as, pngBytes, putSigned, startServer, validAsset } from '../fixtures/server.js';
import { callOk, connectStdio } from './stdio.js';

test('every hosted listing tool runs over the local process, sent as its REST route, and update_my_profile as PATCH /me', async () => {
  const server = await startServer();
  const session = await connectStdio({ MARKETKIT_URL: server.url, MARKETKIT_API_TOKEN: server.seller.token });
  const called = new Set<string>();
  const call = (name: string, args: Record<string, unknown> = {}) => {
    called.add(name);
    return callOk(session.client, name, args);
  };
  try {
    assert.equal((await call('health_check')).ok, true);
    assert.equal((await call('get_my_profile')).id, server.seller.id);
    assert.ok(Array.isArray((await call('list_categories')).data));
    const asset = await call('create_asset', validAsset());
    assert.equal((await call('update_asset', { asset_id: asset.id, title: 'A new title' })).title, 'A new title');
    assert.equal((await call('get_asset', { asset_id: asset.id })).title, 'A new title');
    const listed = await call('list_my_assets', { status: 'draft', limit: 1 });
    assert.deepEqual([listed.data.length, listed.data[0].id], [1, asset.id]);
    assert.equal((await call('count_my_assets')).by_status.draft, 1);

    const file = await call('get_asset_upload_url', { asset_id: asset.id, filename: 'pack.zip' });
    assert.equal((await putSigned(file.signed_url, new Uint8Array(10), 'application/zip')).status < 300, true);
    assert.equal((await call('confirm_asset_file', { asset_id: asset.id, storage_path: file.storage_path, file_size: 10 })).file.file_size, 10);
    const shots: string[] = [];
    for (const name of ['shot.png', 'shot-2.png']) {
      const image = await call('get_image_upload_url', { asset_id: asset.id, filename: name });
      assert.equal((await putSigned(image.signed_url, pngBytes, 'image/png')).status < 300, true);
      const confirmed = await call('confirm_image', { asset_id: asset.id, public_url: image.public_url });
      assert.equal(confirmed.success, true);
      shots.push(confirmed.id);
    }
    const arranged = await call('arrange_images', { asset_id: asset.id, image_ids: [...shots].reverse() });
    assert.deepEqual(arranged.images.map((i: { id: string; is_primary: boolean }) => [i.id, i.is_primary]), [[shots[1], true], [shots[0], false]]);
    assert.equal((await call('submit_asset', { asset_id: asset.id })).status, 'pending');

    const draft = await call('create_asset', validAsset({ slug: 'another-draft' }));
    await call('delete_asset', { asset_id: draft.id });
    const gone = await session.client.callTool({ name: 'get_asset', arguments: { asset_id: draft.id } });
    assert.equal((gone.structuredContent as { code: string }).code, 'NOT_FOUND');

    // The listing published, its new version over the local process as well.
    await server.marketplace.moderation.approve(asset.id);
    const version = await call('create_asset_version', { asset_id: asset.id, version: '1.1.0', release_notes: 'Fixes' });
    assert.equal((await call('update_asset_version', { asset_id: asset.id, version_id: version.id, release_notes: 'More fixes' })).release_notes, 'More fixes');
    const next = await call('get_version_upload_url', { asset_id: asset.id, version_id: version.id, filename: 'pack-2.zip' });
    assert.equal((await putSigned(next.signed_url, new Uint8Array(12), 'application/zip')).status < 300, true);
    assert.equal((await call('confirm_version_file', { asset_id: asset.id, version_id: version.id, storage_path: next.storage_path, file_size: 12 })).file.file_size, 12);
    for (const name of ['a.png', 'b.png']) {
      const shot = await call('get_version_image_upload_url', { asset_id: asset.id, version_id: version.id, filename: name });
      assert.equal((await putSigned(shot.signed_url, pngBytes, 'image/png')).status < 300, true);
      assert.equal((await call('confirm_version_image', { asset_id: asset.id, version_id: version.id, public_url: shot.public_url })).success, true);
    }
    const made = (await call('get_asset_version', { asset_id: asset.id, version_id: version.id })).gallery.map((i: { id: string }) => i.id);
    const gallery = (await call('arrange_version_images', { asset_id: asset.id, version_id: version.id, image_ids: [...made].reverse() })).gallery;
    assert.deepEqual(gallery.map((i: { id: string }) => i.id), [...made].reverse());
    assert.equal((await call('delete_version_image', { asset_id: asset.id, version_id: version.id, image_id: gallery[0].id })).gallery.length, 1);
    assert.equal((await call('submit_asset_version', { asset_id: asset.id, version_id: version.id })).status, 'pending');
    assert.equal((await call('get_asset_version', { asset_id: asset.id, version_id: version.id })).status, 'pending');
    assert.deepEqual((await call('list_asset_versions', { asset_id: asset.id })).items.map((v: { id: string }) => v.id), [version.id]);
    assert.equal((await call('withdraw_asset_version', { asset_id: asset.id, version_id: version.id })).status, 'withdrawn');

    assert.deepEqual(hostedTools.map((tool) => tool.name).filter((name) => !called.has(name)), [], 'every hosted tool was called');
    assert.equal((await call('update_my_profile', { display_name: 'Renamed Seller' })).display_name, 'Renamed Seller');
    assert.deepEqual(session.streamErrors, []);
  } finally {
    await session.close();
    await server.close();
  }
});

test('a write tool called twice with one idempotency_key writes once and answers the same; an upload tool too', async (t) => {
  const server = await startServer();
  const session = await connectStdio({ MARKETKIT_URL: server.url, MARKETKIT_API_TOKEN: server.seller.token });
  try {
    const body = validAsset({ slug: 'retried-by-assistant' });
    const first = await callOk(session.client, 'create_asset', { ...body, idempotency_key: 'assistant-call-1' });
    const again = await callOk(session.client, 'create_asset', { ...body, idempotency_key: 'assistant-call-1' });
    assert.deepEqual(again, first, 'the retry is the first result');
    const listed = await callOk(session.client, 'list_my_assets', {});
    assert.deepEqual(listed.data.map((a: { id: string }) => a.id), [first.id], 'one listing');

    const dir = mkdtempSync(join(tmpdir(), 'mk-upload-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'pack.zip');
    writeFileSync(path, new Uint8Array(2048).fill(1));
    const uploaded = await callOk(session.client, 'upload_asset_file', { asset_id: first.id, path, idempotency_key: 'assistant-upload-1' });
    const repeated = await callOk(session.client, 'upload_asset_file', { asset_id: first.id, path, idempotency_key: 'assistant-upload-1' });
    assert.deepEqual(repeated, uploaded, 'the repeated upload returns the first confirmation');
    const issued = await as(server, server.seller.token).get(`/assets/${first.id}`);
    assert.equal(issued.body.file.storage_path, uploaded.file.storage_path, 'the file is the first upload’s');
    const reused = await session.client.callTool({ name: 'create_asset', arguments: { ...validAsset({ slug: 'other' }), idempotency_key: 'assistant-call-1' } });
    assert.equal((reused.structuredContent as { code: string }).code, 'IDEMPOTENCY_KEY_REUSED');
  } finally {
    await session.close();
    await server.close();
  }
});

test('the local process retries a write whose answer was cut off with the same Idempotency-Key, without being asked: one listing', async () => {
  const server = await startServer();
  const proxy = await startFaultProxy(server.url, (method, path, index) => (method === 'POST' && path === '/api/v1/assets' && index === 0 ? { forwardThenCut: true } : 'forward'));
  const session = await connectStdio({ MARKETKIT_URL: proxy.url, MARKETKIT_API_TOKEN: server.seller.token });
  try {
    const created = await callOk(session.client, 'create_asset', validAsset({ slug: 'cut-off-answer' }));
    assert.deepEqual(proxy.log.filter((entry) => entry === 'POST /api/v1/assets').length, 2, 'sent again after the cut');
    const listed = await as(server, server.seller.token).get('/assets');
    assert.deepEqual(listed.body.data.map((a: { id: string }) => a.id), [created.id], 'one listing, the one the tool returned');
  } finally {
    await session.close();
    await proxy.close();
    await server.close();
  }
});
