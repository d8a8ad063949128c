import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { hostedToolNames } from '../../conformance/http/checks-mcp.js';
import { developerOperations } from '../../core/operations/index.js';
import { connectSdkClient } from '../fixtures/mcp.js';
import { pngBytes, startServer, validAsset, type TestServer } from '../fixtures/server.js';

/** What the declarations offer on the hosted endpoint: health_check and each operation's tool that is not local-only. */
const declaredToolNames = ['health_check', ...developerOperations.flatMap((operation) => (operation.tool && !operation.tool.localOnly ? [operation.tool.name] : []))];

let server: TestServer;
let client: Client;

before(async () => {
  server = await startServer();
  client = await connectSdkClient(server, server.seller.token);
});

after(async () => {
  await client.close();
  await server.close();
});

/** A tool call through the SDK, which validates structuredContent against the tool's outputSchema. */
async function call(name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  return result as { structuredContent?: any; content: { type: string; text: string }[]; isError?: boolean };
}

test('the SDK client initializes with the server identity, the tools capability and the upload order', () => {
  assert.equal(client.getServerVersion()?.name, 'marketkit');
  assert.deepEqual(client.getServerCapabilities()?.tools, { listChanged: false });
  const instructions = client.getInstructions() ?? '';
  const order = ['create_asset', 'get_asset_upload_url', 'PUT', 'confirm_asset_file', 'get_image_upload_url', 'confirm_image', 'submit_asset'];
  const positions = order.map((step) => instructions.indexOf(step));
  assert.ok(positions.every((p) => p >= 0), `instructions name every step: ${instructions}`);
  assert.deepEqual([...positions].sort((a, b) => a - b), positions, 'in upload order');
});

test('tools/list gives the 13 tools of the spec and every tool the operations declare, nothing else', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  assert.deepEqual(hostedToolNames.filter((name) => !names.includes(name)), [], 'the spec\'s tools');
  assert.deepEqual([...names].sort(), [...declaredToolNames].sort());
  for (const tool of tools) {
    assert.ok(tool.title && tool.description && tool.description.length > 40, `${tool.name} says what it does`);
    assert.equal(tool.inputSchema.type, 'object');
    assert.equal(tool.outputSchema?.type, 'object');
  }
});

test('the whole upload flow by tool calls and two PUTs ends pending', async () => {
  const created = await call('create_asset', validAsset({ title: 'Castle Pack via MCP', tags: ['castle'] }));
  assert.equal(created.isError, undefined);
  assert.equal(created.structuredContent.status, 'draft');
  assert.deepEqual(JSON.parse(created.content[0]!.text), created.structuredContent, 'the text is the same JSON');
  const asset_id: string = created.structuredContent.id;

  const fileBytes = new TextEncoder().encode('PK\u0003\u0004 a zip of castles');
  const fileUrl = (await call('get_asset_upload_url', { asset_id, filename: 'castle-pack.zip' })).structuredContent;
  const put = await fetch(fileUrl.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: fileBytes });
  assert.equal(put.status, 200);
  const confirmed = await call('confirm_asset_file', { asset_id, storage_path: fileUrl.storage_path, file_size: fileBytes.byteLength });
  assert.equal(confirmed.structuredContent.file.file_size, fileBytes.byteLength);

  const imageUrl = (await call('get_image_upload_url', { asset_id, filename: 'shot.png' })).structuredContent;
  const imagePut = await fetch(imageUrl.signed_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: pngBytes });
  assert.equal(imagePut.status, 200);
  const image = await call('confirm_image', { asset_id, public_url: imageUrl.public_url });
  assert.equal(image.structuredContent.is_primary, true);

  const submitted = await call('submit_asset', { asset_id });
  assert.deepEqual(submitted.structuredContent, { success: true, id: asset_id, status: 'pending', scheduled_publish_at: null });

  const fetched = await call('get_asset', { asset_id });
  assert.equal(fetched.structuredContent.status, 'pending');
  assert.equal(fetched.structuredContent.images.length, 1);
  assert.equal(fetched.structuredContent.file.storage_path, fileUrl.storage_path);
});

test('a refusal reaches an SDK client as a readable isError result, not a thrown error', async () => {
  const created = await call('create_asset', validAsset());
  const refused = await call('submit_asset', { asset_id: created.structuredContent.id });
  assert.equal(refused.isError, true);
  assert.equal(refused.structuredContent.code, 'NO_FILE');
  assert.deepEqual(JSON.parse(refused.content[0]!.text), refused.structuredContent);
});

test('health_check reports ok with the caller\'s user id', async () => {
  const health = await call('health_check');
  assert.deepEqual(health.structuredContent, { ok: true, user_id: server.seller.id, checks: { storage: 'ok', blobs: 'ok' } });
});
