/**
 * Security finding 7 of wave 2, the smaller ones (docs/security.md, "Findings of the wave-2
 * security test"), each replayed as the test found it: IPv6 ranges a webhook could reach, the
 * upload sweep's lease outliving its run, MCP Origins in spellings no browser sends, a SQLite
 * database locked by another process, and one idempotency key on REST and MCP.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sqliteStorage } from '../../adapters/sqlite/index.js';
import { createMarketplace } from '../../core/marketplace.js';
import { memoryBlobs } from '../../adapters/memory/index.js';
import { callTool, postMcp } from '../fixtures/mcp.js';
import { as, call, startServer, validAsset } from '../fixtures/server.js';

const temporaryDirectory = (t: { after(fn: () => void): void }) => {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-wave2-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

test('webhook targets in 64:ff9b:1::/48, ::ffff:0:0:0/96, 100::/64 and 2001::/32 are refused as local or reserved', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const seller = as(server, server.seller.token);
  for (const host of ['[64:ff9b:1::a00:1]', '[64:ff9b:1:ffff::1]', '[::ffff:0:a00:1]', '[::ffff:0:7f00:1]', '[100::1]', '[100::ffff:1]', '[2001::1]', '[2001:0:4136:e378:8000:63bf:3fff:fdd2]', '[::ffff:7f00:1]']) {
    const answer = await seller.post('/webhooks', { url: `https://${host}/in` });
    assert.equal(answer.status, 400, `${host}: ${JSON.stringify(answer.body)}`);
    assert.equal(answer.body.details[0].path, 'url');
    assert.match(answer.body.details[0].message, /must not point at a (private|reserved|loopback)/, host);
  }
  // Public IPv6 next to them is still a target.
  assert.equal((await seller.post('/webhooks', { url: 'https://[2001:4860:4860::8888]/in' })).status, 201);
  assert.equal((await seller.post('/webhooks', { url: 'https://[64:ff9b::808:808]/in' })).status, 201, 'well-known NAT64 of a public address');
});

test('the upload sweep gives its lease back when done: an instance started next (a restart) sweeps at once', async (t) => {
  const path = join(temporaryDirectory(t), 'marketkit.db');
  const instance = async () => {
    const storage = await sqliteStorage({ path });
    const marketplace = createMarketplace({ storage, blobs: memoryBlobs() });
    return { marketplace, close: () => storage.close() };
  };
  const first = await instance();
  assert.equal((await first.marketplace.maintenance.sweepUploads()).ran, true);
  await first.close();
  const restarted = await instance();
  t.after(() => restarted.close());
  assert.equal((await restarted.marketplace.maintenance.sweepUploads()).ran, true, 'the start-up sweep of the restarted server ran');
});

test('the MCP endpoint refuses an allowed Origin in a spelling browsers never send (upper-case scheme, :443, a trailing slash), as REST does', async (t) => {
  const app = 'https://app.example';
  const server = await startServer({ corsOrigins: [app], mcp: { allowedOrigins: [app] } });
  t.after(() => server.close());
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  assert.equal((await postMcp(server, ping, { headers: { origin: app } })).status, 200);
  for (const spelling of ['HTTPS://app.example', 'https://APP.example', 'https://app.example:443', 'https://app.example/']) {
    const mcp = await postMcp(server, ping, { headers: { origin: spelling } });
    assert.equal(mcp.status, 403, `MCP ${spelling}`);
    const rest = await fetch(`${server.api}/health`, { headers: { origin: spelling } });
    assert.equal(rest.headers.get('access-control-allow-origin'), null, `REST ${spelling}`);
  }
});

test('a SQLite database locked by another process is 503 SERVICE_UNAVAILABLE with Retry-After, not 500', async (t) => {
  const path = join(temporaryDirectory(t), 'marketkit.db');
  const storage = await sqliteStorage({ path, busyTimeoutMs: 200 });
  const heard: unknown[] = [];
  const server = await startServer({ storage, onError: (error) => heard.push(error) });
  t.after(async () => {
    await server.close();
    await storage.close();
  });
  // Another process takes the write lock and keeps it (a backup, a second server on the file).
  const holder = spawn(process.execPath, ['-e', `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(path)}); db.exec('BEGIN IMMEDIATE'); console.log('locked'); setInterval(() => {}, 1000);`], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => holder.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    holder.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
    holder.on('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  const answer = await as(server, server.seller.token).post('/assets', validAsset());
  assert.equal(answer.status, 503, JSON.stringify(answer.body));
  assert.equal(answer.body.code, 'SERVICE_UNAVAILABLE');
  assert.ok(Number(answer.headers.get('retry-after')) > 0);
  assert.ok(heard.every((error) => (error as { code?: string }).code === 'STORAGE_UNAVAILABLE'), 'onError heard an outage, not an internal error');
  holder.kill('SIGKILL');
  await new Promise((resolve) => holder.once('exit', resolve));
  assert.equal((await as(server, server.seller.token).post('/assets', validAsset())).status, 201, 'and works again once the lock is gone');
});

test('one Idempotency-Key on REST and as idempotency_key on MCP names two requests, as docs/rest.md says', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const key = 'shared-key-1';
  const rest = await call(server, 'POST', '/assets', { token: server.seller.token, headers: { 'idempotency-key': key }, body: validAsset() });
  assert.equal(rest.status, 201);
  const mcp = await callTool(server, server.seller.token, 'create_asset', { ...validAsset(), idempotency_key: key });
  assert.equal(mcp.body.result.isError, undefined, JSON.stringify(mcp.body));
  assert.notEqual(mcp.body.result.structuredContent.id, rest.body.id, 'a second listing, not a 422');
  // Each surface still replays its own.
  const again = await callTool(server, server.seller.token, 'create_asset', { ...validAsset(), idempotency_key: key });
  assert.equal(again.body.result.isError, true, 'another request with the MCP key is refused on MCP');
  assert.equal(again.body.result.structuredContent.code, 'IDEMPOTENCY_KEY_REUSED');
});
