/**
 * `marketkit upload` against a server that answers hostile offsets (docs/security.md, "Findings of
 * the wave-4 upload security test", 5): an Upload-Offset that is not a whole number of bytes within
 * the file, from HEAD or from a PATCH's 204, is refused: the command says which header and value,
 * exits 1, and confirms nothing (believed, -5 sends and confirms, `abc` confirms what was never
 * sent, 1.5 loops). A 423's Retry-After longer than the client waits stops it too, rather than
 * hanging it for as long as the server says.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, tempDir } from '../fixtures/cli.js';

/**
 * A marketplace that issues an upload and then answers `offset` where the protocol says Upload-Offset:
 * on HEAD (after a 409) or on the PATCH's 204; or, `locked`, refuses every PATCH 423 with Retry-After `offset`.
 */
async function hostileServer(offset: string, where: 'head' | 'patch' | 'locked') {
  const seen: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    seen.push(`${request.method} ${request.url}`);
    request.resume();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const json = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method === 'POST' && request.url!.endsWith('/upload-url')) {
      return json(200, { signed_url: `${url}/put`, upload_url: `${url}/tus/upload`, storage_path: 'assets/a/files/u/pack.bin', expires_at: '2099-01-01T00:00:00.000Z', method: 'PUT' });
    }
    const tus = { 'tus-resumable': '1.0.0', 'upload-length': '2048' };
    if (request.url === '/tus/upload' && request.method === 'HEAD') return response.writeHead(200, { ...tus, 'upload-offset': offset }).end();
    if (request.url === '/tus/upload' && request.method === 'PATCH') {
      if (where === 'patch') return response.writeHead(204, { ...tus, 'upload-offset': offset }).end();
      if (where === 'locked') return response.writeHead(423, { ...tus, 'retry-after': offset, 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Another request is appending to this upload.', code: 'UPLOAD_LOCKED' }));
      return response.writeHead(409, { ...tus, 'content-type': 'application/json' }).end(JSON.stringify({ error: 'offset moved', code: 'UPLOAD_OFFSET_MISMATCH' }));
    }
    if (request.url!.endsWith('/confirm-file')) return json(200, { success: true, file: { storage_path: 'assets/a/files/u/pack.bin', file_size: 2048, content_type: 'application/octet-stream', confirmed_at: '2099-01-01T00:00:00.000Z', sha256: null } });
    json(404, { error: 'No such endpoint.', code: 'NOT_FOUND' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** `marketkit upload` of a 2 KiB file in 1 KiB chunks to `server`. */
async function uploadTo(t: { after(fn: () => void): void }, server: { url: string }) {
  const dir = tempDir(t, 'marketkit-hostile-');
  const file = join(dir, 'pack.bin');
  writeFileSync(file, new Uint8Array(2048).fill(7));
  return runCli(['upload', 'a', file, '--url', server.url, '--state', join(dir, 'state.json'), '--resumable-threshold', '1KiB', '--chunk-size', '1KiB'], { MARKETKIT_API_TOKEN: 'smcp_hostile' });
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

for (const where of ['head', 'patch'] as const) {
  for (const offset of ['-5', 'abc', '1.5', '4096', '']) {
    test(`marketkit upload refuses Upload-Offset ${JSON.stringify(offset)} from ${where === 'head' ? 'HEAD' : "a PATCH's 204"}: exit 1, the header named, nothing confirmed`, { timeout: 30_000 }, async (t) => {
      const server = await hostileServer(offset, where);
      t.after(() => server.close());
      const run = await uploadTo(t, server);
      assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stderr, new RegExp(`Upload-Offset ${escaped(JSON.stringify(offset))}: not a whole number of bytes from 0 to 2048`));
      assert.ok(!server.seen.some((line) => line.endsWith('/confirm-file')), `nothing confirmed: ${server.seen.join(', ')}`);
    });
  }
}

test("marketkit upload does not wait an hour because a 423's Retry-After says so: exit 1 at once, the header named, nothing confirmed", { timeout: 30_000 }, async (t) => {
  const server = await hostileServer('3600', 'locked');
  t.after(() => server.close());
  const run = await uploadTo(t, server);
  assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /answered 423 with Retry-After 3600: longer than the 60 s this client waits/);
  assert.ok(!server.seen.some((line) => line.endsWith('/confirm-file')), `nothing confirmed: ${server.seen.join(', ')}`);
});
