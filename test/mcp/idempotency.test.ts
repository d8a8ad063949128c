/**
 * Safe retries on MCP: a write tool called again with its idempotency_key runs once and returns the
 * first tool result (docs/mcp.md, "Retries").
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { as, startServer, validAsset, type TestServer } from '../fixtures/server.js';
import { callTool, connectSdkClient, rpc } from '../fixtures/mcp.js';

let server: TestServer;
before(async () => (server = await startServer()));
after(() => server.close());

async function listingsWithSlug(slug: string): Promise<number> {
  const page = await as(server, server.seller.token).get('/assets?limit=100');
  return (page.body.data as { slug: string }[]).filter((asset) => asset.slug === slug).length;
}

test('tools/list offers idempotency_key on every write tool, and only there, and says to reuse it on a retry', async () => {
  const { body } = await rpc(server, 'tools/list');
  for (const tool of body.result.tools) {
    const takesKey = 'idempotency_key' in tool.inputSchema.properties;
    assert.equal(takesKey, !tool.annotations.readOnlyHint, tool.name);
    if (takesKey) {
      assert.ok(!(tool.inputSchema.required ?? []).includes('idempotency_key'), `${tool.name}: the key is optional`);
      assert.match(tool.description, /idempotency_key/, tool.name);
    }
  }
});

test('create_asset twice with one idempotency_key creates one listing and returns the same tool result', async () => {
  const asset = validAsset();
  const args = { ...asset, idempotency_key: 'assistant-retry-1' };
  const first = await callTool(server, server.seller.token, 'create_asset', args);
  const second = await callTool(server, server.seller.token, 'create_asset', args);
  assert.equal(first.body.result.isError, undefined);
  assert.deepEqual(second.body.result, first.body.result);
  assert.equal(await listingsWithSlug(asset.slug), 1);
});

test('the key with other arguments is a refusal the assistant can read: IDEMPOTENCY_KEY_REUSED', async () => {
  await callTool(server, server.seller.token, 'create_asset', { ...validAsset(), idempotency_key: 'assistant-retry-2' });
  const other = validAsset();
  const reused = await callTool(server, server.seller.token, 'create_asset', { ...other, idempotency_key: 'assistant-retry-2' });
  assert.equal(reused.body.result.isError, true);
  assert.equal(reused.body.result.structuredContent.code, 'IDEMPOTENCY_KEY_REUSED');
  assert.equal(await listingsWithSlug(other.slug), 0);
});

test('a bad idempotency_key is INVALID_INPUT naming the argument', async () => {
  const answer = await callTool(server, server.seller.token, 'create_asset', { ...validAsset(), idempotency_key: '' });
  assert.equal(answer.body.result.isError, true);
  assert.equal(answer.body.result.structuredContent.code, 'INVALID_INPUT');
  assert.equal(answer.body.result.structuredContent.details[0].path, 'idempotency_key');
});

test('the official SDK client retrying a tool call with its key gets the first result', async () => {
  const client = await connectSdkClient(server, server.seller.token);
  try {
    const created = await client.callTool({ name: 'create_asset', arguments: { ...validAsset(), idempotency_key: 'sdk-1' } });
    const id = (created.structuredContent as { id: string }).id;
    const submitArgs = { asset_id: id, idempotency_key: 'sdk-submit-1' };
    const first = await client.callTool({ name: 'submit_asset', arguments: submitArgs });
    const retried = await client.callTool({ name: 'submit_asset', arguments: submitArgs });
    // No file: NO_FILE, kept and given back as it was (a retry never becomes another outcome).
    assert.equal(first.isError, true);
    assert.deepEqual(retried, first);
  } finally {
    await client.close();
  }
});
