import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { hostedTools } from '../../core/mcp/tools.js';
import { studioTools } from '../../core/studio/tools.js';
import { tempDir } from '../fixtures/cli.js';
import { startServer, validAsset } from '../fixtures/server.js';
import { callOk, connectStdio } from './stdio.js';

test('the SDK client over stdio lists the local tools: every hosted listing tool, the upload, seller and studio tools', async () => {
  const server = await startServer();
  const session = await connectStdio({ MARKETKIT_URL: server.url, MARKETKIT_API_TOKEN: server.seller.token });
  try {
    assert.equal(session.client.getServerVersion()?.name, 'marketkit-local');
    const { tools } = await session.client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const hosted of hostedTools) assert.ok(names.includes(hosted.name), `${hosted.name} is served locally`);
    for (const name of ['upload_asset_file', 'upload_asset_image', 'update_my_profile', 'get_seller_stats']) assert.ok(names.includes(name), name);
    for (const studio of studioTools) assert.ok(names.includes(studio.name), studio.name);
    assert.equal(new Set(names).size, names.length, 'no name twice');
    const upload = tools.find((tool) => tool.name === 'upload_asset_file')!;
    assert.deepEqual(upload.inputSchema.required, ['asset_id', 'path']);
    assert.match(session.stderr(), /over stdio for http:\/\/127\.0\.0\.1:\d+; credential: MARKETKIT_API_TOKEN/);
    assert.deepEqual(session.streamErrors, []);
  } finally {
    await session.close();
    await server.close();
  }
});

test('upload_asset_file uploads a local file with progress notifications, and submit_asset sends the listing to review', async (t) => {
  const server = await startServer();
  const dir = tempDir(t, 'marketkit-mcp-');
  const bytes = new Uint8Array(400_000).map((_, i) => (i * 7) % 256);
  writeFileSync(join(dir, 'pack.zip'), bytes);
  const session = await connectStdio({ MARKETKIT_URL: server.url, MARKETKIT_API_TOKEN: server.seller.token }, dir);
  try {
    const { client } = session;
    const asset = await callOk(client, 'create_asset', validAsset());
    const progress: { progress: number; total?: number }[] = [];
    const result = await client.callTool({ name: 'upload_asset_file', arguments: { asset_id: asset.id, path: 'pack.zip' } }, undefined, {
      onprogress: (p) => progress.push({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}) }),
    });
    assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
    const confirmed = result.structuredContent as any;
    assert.equal(confirmed.file.file_size, bytes.byteLength);
    assert.equal(confirmed.file.content_type, 'application/zip');
    assert.ok(progress.length >= 2, `progress notifications: ${JSON.stringify(progress)}; stderr: ${session.stderr()}`);
    assert.deepEqual(progress.at(-1), { progress: bytes.byteLength, total: bytes.byteLength });
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.progress > progress[i - 1]!.progress, 'progress increases');
    const stored = await server.marketplace.ports.blobs.get(confirmed.file.storage_path);
    assert.equal(stored?.size, bytes.byteLength, 'the bytes are on the server');

    const submitted = await callOk(client, 'submit_asset', { asset_id: asset.id });
    assert.equal(submitted.status, 'pending');
    const detail = await callOk(client, 'get_asset', { asset_id: asset.id });
    assert.equal(detail.status, 'pending');
    assert.equal(detail.file.file_size, bytes.byteLength);
    const stats = await callOk(client, 'get_seller_stats');
    assert.equal(stats.listings, 1);
    assert.deepEqual(stats.by_status, { pending: 1 });
    assert.deepEqual(session.streamErrors, []);
  } finally {
    await session.close();
    await server.close();
  }
});

test('refusals are tool results naming the field: bad arguments, a missing local file, another seller’s listing', async () => {
  const server = await startServer();
  const session = await connectStdio({ MARKETKIT_URL: server.url, MARKETKIT_API_TOKEN: server.seller.token });
  try {
    const { client } = session;
    const invalid = await client.callTool({ name: 'create_asset', arguments: { title: 'x', slug: 'ok-slug' } });
    assert.equal(invalid.isError, true);
    assert.equal((invalid.structuredContent as any).code, 'INVALID_INPUT');
    assert.equal((invalid.structuredContent as any).details[0].path, 'title');

    const asset = await callOk(client, 'create_asset', validAsset());
    const missing = await client.callTool({ name: 'upload_asset_file', arguments: { asset_id: asset.id, path: 'no/such/file.zip' } });
    assert.equal(missing.isError, true);
    assert.equal((missing.structuredContent as any).code, 'INVALID_INPUT');
    assert.match((missing.structuredContent as any).error, /no such file/);

    const others = await (await fetch(`${server.api}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.other.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(validAsset()),
    })).json();
    const notMine = await client.callTool({ name: 'get_asset', arguments: { asset_id: others.id } });
    assert.equal(notMine.isError, true);
    assert.equal((notMine.structuredContent as any).code, 'NOT_FOUND');
  } finally {
    await session.close();
    await server.close();
  }
});

test('a cancelled upload_asset_file stops its upload: the listing has no file and the process keeps answering', async (t) => {
  const server = await startServer();
  const dir = tempDir(t, 'marketkit-mcp-');
  writeFileSync(join(dir, 'big.zip'), new Uint8Array(120 * 1024 * 1024));
  const session = await connectStdio({ MARKETKIT_URL: server.url, MARKETKIT_API_TOKEN: server.seller.token }, dir);
  try {
    const { client } = session;
    const asset = await callOk(client, 'create_asset', validAsset());
    const controller = new AbortController();
    const call = client.callTool({ name: 'upload_asset_file', arguments: { asset_id: asset.id, path: 'big.zip' } }, undefined, {
      signal: controller.signal,
      // The first progress notification (0 bytes) says the upload has begun.
      onprogress: () => controller.abort('changed my mind'),
    });
    await assert.rejects(call);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.match(session.stderr(), /cancelled by the client/);
    const detail = await callOk(client, 'get_asset', { asset_id: asset.id });
    assert.equal(detail.file, null, 'nothing was confirmed');
    assert.deepEqual(session.streamErrors, [], 'no answer for the cancelled request');
  } finally {
    await session.close();
    await server.close();
  }
});
