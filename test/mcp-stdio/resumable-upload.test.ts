/**
 * `marketkit mcp`'s upload_asset_file above its resumable threshold (MARKETKIT_RESUMABLE_THRESHOLD,
 * small here to keep the test fast), through the official SDK client over stdio: the file goes up in
 * checksummed tus chunks, a chunk cut off mid-way is resumed from the server's offset, the progress
 * notifications only go up, and the confirmed file carries the file's SHA-256.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { systemClock } from '../../core/ports/clock.js';
import { bigFile } from '../fixtures/big-file.js';
import { tempDir } from '../fixtures/cli.js';
import { startServer, validAsset } from '../fixtures/server.js';
import { startFaultProxy } from '../client/fault-proxy.js';
import { callOk, connectStdio } from './stdio.js';

const MiB = 2 ** 20;

test('upload_asset_file above the threshold goes up resumably: a chunk cut mid-way is resumed, progress only rises, the SHA-256 is confirmed', async (t) => {
  const dir = tempDir(t, 'marketkit-mcp-resumable-');
  const server = await startServer({ blobs: fsBlobs({ root: join(dir, 'blobs') }), clock: systemClock });
  t.after(() => server.close());
  const proxy = await startFaultProxy(server.url, (method, path, index) => (method === 'PATCH' && path.startsWith('/api/v1/uploads/') && index === 1 ? { cutRequestAfter: MiB } : 'forward'), { preserveHost: true });
  t.after(() => proxy.close());
  const file = bigFile(dir, 20, 'pack.zip');
  const session = await connectStdio({ MARKETKIT_URL: proxy.url, MARKETKIT_API_TOKEN: server.seller.token, MARKETKIT_RESUMABLE_THRESHOLD: '1MiB', MARKETKIT_UPLOAD_STATE: join(dir, 'state.json') }, dir);
  t.after(() => session.close());

  const asset = await callOk(session.client, 'create_asset', validAsset());
  const progress: number[] = [];
  const result = await session.client.callTool({ name: 'upload_asset_file', arguments: { asset_id: asset.id, path: 'pack.zip' } }, undefined, {
    onprogress: (report) => progress.push(report.progress),
  });
  assert.equal(result.isError, undefined, `${JSON.stringify(result.structuredContent)}; stderr: ${session.stderr()}`);
  const confirmed = result.structuredContent as { file: { file_size: number; sha256: string } };
  assert.equal(confirmed.file.file_size, file.size);
  assert.equal(confirmed.file.sha256, file.sha256);
  const patches = proxy.log.filter((entry) => entry.startsWith('PATCH /api/v1/uploads/')).length;
  assert.equal(patches, 4, `three 8 MiB chunks, one of them twice: ${proxy.log.join('\n')}`);
  assert.ok(proxy.log.some((entry) => entry.startsWith('HEAD /api/v1/uploads/')), 'the offset asked after the cut');
  assert.ok(!proxy.log.some((entry) => entry.startsWith('PUT ')), 'no single PUT');
  assert.equal(progress.at(-1), file.size);
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i]! > progress[i - 1]!, `progress only rises: ${progress}`);
  assert.equal((await callOk(session.client, 'get_asset', { asset_id: asset.id })).file.sha256, file.sha256);
  assert.deepEqual(session.streamErrors, []);
});
