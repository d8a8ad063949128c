/**
 * `marketkit upload` against a server that answers hostile offsets (docs/security.md, "Findings of
 * the wave-4 upload security test", 5): an Upload-Offset that is not a whole number of bytes within
 * the file, from HEAD or from a PATCH's 204, is refused: the command says which header and value,
 * exits 1, and confirms nothing. Before, from -5 it sent and confirmed, from `abc` it sent nothing
 * and confirmed, and from 1.5 it looped.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, tempDir } from '../fixtures/cli.js';

/** A marketplace that issues an upload and then answers `offset` where the protocol says Upload-Offset: on HEAD (after a 409) or on the PATCH's 204. */
async function hostileServer(offset: string, where: 'head' | 'patch') {
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
      return response.writeHead(409, { ...tus, 'content-type': 'application/json' }).end(JSON.stringify({ error: 'offset moved', code: 'UPLOAD_OFFSET_MISMATCH' }));
    }
    if (request.url!.endsWith('/confirm-file')) return json(200, { success: true, file: { storage_path: 'assets/a/files/u/pack.bin', file_size: 2048, content_type: 'application/octet-stream', confirmed_at: '2099-01-01T00:00:00.000Z', sha256: null } });
    json(404, { error: 'No such endpoint.', code: 'NOT_FOUND' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((resolve) => server.close(resolve)) };
}

for (const where of ['head', 'patch'] as const) {
  for (const offset of ['-5', 'abc', '1.5', '4096', '']) {
    test(`marketkit upload refuses Upload-Offset ${JSON.stringify(offset)} from ${where === 'head' ? 'HEAD' : "a PATCH's 204"}: exit 1, the header named, nothing confirmed`, { timeout: 30_000 }, async (t) => {
      const server = await hostileServer(offset, where);
      t.after(() => server.close());
      const dir = tempDir(t, 'marketkit-hostile-');
      const file = join(dir, 'pack.bin');
      writeFileSync(file, new Uint8Array(2048).fill(7));
      const run = await runCli(['upload', 'a', file, '--url', server.url, '--state', join(dir, 'state.json'), '--resumable-threshold', '1KiB', '--chunk-size', '1KiB'], { MARKETKIT_API_TOKEN: 'smcp_hostile' });
      assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stderr, new RegExp(`Upload-Offset ${JSON.stringify(offset).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not a whole number of bytes from 0 to 2048`));
      assert.ok(!server.seen.some((line) => line.endsWith('/confirm-file')), `nothing confirmed: ${server.seen.join(', ')}`);
    });
  }
}
