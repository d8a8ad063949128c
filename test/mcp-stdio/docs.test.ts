import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { adminTools, localTools } from '../../cli/mcp-tools.js';
import { startServer } from '../fixtures/server.js';
import { callOk, connectStdio } from './stdio.js';

const root = new URL('../../', import.meta.url);
const doc = readFileSync(new URL('docs/mcp.md', root), 'utf8');

test('docs/mcp.md names every tool of the local process, the seller’s and the admin ones', () => {
  const missing = [...localTools, ...adminTools].map((tool) => tool.name).filter((name) => !doc.includes(`\`${name}\``));
  assert.deepEqual(missing, []);
});

test('the local entry of docs/examples/mcp-local.json starts the process the SDK client then calls', async () => {
  const entry = JSON.parse(readFileSync(new URL('docs/examples/mcp-local.json', root), 'utf8')).mcpServers['marketkit-local'];
  // `npx -y marketkit mcp` runs the package's marketkit bin with the arguments after the package name.
  assert.equal(entry.command, 'npx');
  assert.deepEqual(entry.args.slice(0, 2), ['-y', 'marketkit']);
  assert.deepEqual(entry.args.slice(2), ['mcp']);
  assert.deepEqual(Object.keys(entry.env).sort(), ['MARKETKIT_API_TOKEN', 'MARKETKIT_URL']);
  const server = await startServer();
  const env = { MARKETKIT_URL: server.url, MARKETKIT_API_TOKEN: entry.env.MARKETKIT_API_TOKEN.replace('smcp_YOUR_DEVELOPER_TOKEN', server.seller.token) };
  const session = await connectStdio(env);
  try {
    assert.equal((await callOk(session.client, 'health_check')).ok, true);
  } finally {
    await session.close();
    await server.close();
  }
});
