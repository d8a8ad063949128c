import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tableIn } from '../../scripts/mcp-tool-docs.js';
import { startServer } from '../fixtures/server.js';

const root = new URL('../../', import.meta.url);

test('the client entry of docs/mcp.md (docs/examples/mcp-client.json) connects the SDK client, which lists and calls the tools', async () => {
  const entry = JSON.parse(readFileSync(new URL('docs/examples/mcp-client.json', root), 'utf8')).mcpServers.marketkit;
  assert.equal(entry.type, 'http');
  const server = await startServer();
  // The example's address and placeholder token, replaced by this server's.
  const url = new URL(entry.url);
  const headers = { Authorization: entry.headers.Authorization.replace('smcp_YOUR_DEVELOPER_TOKEN', server.seller.token) };
  const client = new Client({ name: 'docs-example', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url.pathname, server.url), { requestInit: { headers } }));
    const { tools } = await client.listTools();
    const hosted = tableIn(readFileSync(new URL('docs/mcp.md', root), 'utf8'), 'hosted') ?? '';
    const documented = [...hosted.matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1]);
    assert.deepEqual(documented, tools.map((tool) => tool.name), 'the hosted tool table of docs/mcp.md lists every tool, in order');
    const health = await client.callTool({ name: 'health_check', arguments: {} });
    assert.deepEqual(health.structuredContent, { ok: true, user_id: server.seller.id, checks: { storage: 'ok', blobs: 'ok' } });
  } finally {
    await client.close();
    await server.close();
  }
});
