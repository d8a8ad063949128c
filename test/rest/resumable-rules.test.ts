/**
 * Rules of a resumable upload that docs/uploads.md states (issue 29, smaller points): appends do not
 * extend its expiry; the content type a file is stored with, each way it is sent; the slow-client
 * rule of docs/security.md holds for each append on its own (a stalled PATCH is cut, keeps what
 * arrived, and the upload continues from the offset HEAD reports); and the MCP tool that issues the URLs names
 * upload_url and file_size.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { serve } from '../../bindings/node/index.js';
import { rpc } from '../fixtures/mcp.js';
import { as, startServer, validAsset, type TestServer } from '../fixtures/server.js';

const tus = { 'tus-resumable': '1.0.0' };
const patch = (url: string, offset: number, body: Uint8Array) =>
  fetch(url, { method: 'PATCH', headers: { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) }, body: body as BodyInit });
const head = (url: string) => fetch(url, { method: 'HEAD', headers: tus });

async function fsServer(t: { after(fn: () => unknown): void }): Promise<TestServer> {
  const root = mkdtempSync(join(tmpdir(), 'marketkit-rules-'));
  const server = await startServer({ blobs: fsBlobs({ root }) });
  t.after(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });
  return server;
}

async function declared(server: TestServer, size: number) {
  const client = as(server, server.seller.token);
  const id = (await client.post('/assets', validAsset())).body.id as string;
  const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip', file_size: size })).body;
  return { id, client, issued };
}

describe('the rules of a resumable upload', () => {
  test('appends do not extend its expiry: Upload-Expires stays expires_at, and past it the upload takes nothing (410)', async (t) => {
    const server = await fsServer(t);
    const { issued } = await declared(server, 3000);
    const expires = new Date(issued.expires_at).toUTCString();
    assert.equal((await head(issued.upload_url)).headers.get('upload-expires'), expires);
    server.clock.advance(60 * 60_000);
    const first = await patch(issued.upload_url, 0, new Uint8Array(1000));
    assert.equal(first.status, 204);
    assert.equal(first.headers.get('upload-expires'), expires, 'an append an hour in does not move it');
    server.clock.advance(Date.parse(issued.expires_at) - server.clock.now() + 1000);
    const late = await patch(issued.upload_url, 1000, new Uint8Array(1000));
    assert.equal(late.status, 410);
    assert.equal((await late.json()).code, 'UPLOAD_GONE');
    assert.equal((await head(issued.upload_url)).status, 410);
  });

  test('the stored content type: the single PUT keeps its Content-Type; a file sent through upload_url is application/octet-stream', async (t) => {
    const server = await fsServer(t);
    const viaPut = await declared(server, 10);
    const put = await fetch(viaPut.issued.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: new Uint8Array(10) });
    assert.equal(put.status, 200);
    const putFile = await viaPut.client.post(`/assets/${viaPut.id}/confirm-file`, { storage_path: viaPut.issued.storage_path, file_size: 10 });
    assert.equal(putFile.body.file.content_type, 'application/zip');
    const viaTus = await declared(server, 10);
    assert.equal((await patch(viaTus.issued.upload_url, 0, new Uint8Array(10))).status, 204);
    const tusFile = await viaTus.client.post(`/assets/${viaTus.id}/confirm-file`, { storage_path: viaTus.issued.storage_path, file_size: 10 });
    assert.equal(tusFile.body.file.content_type, 'application/octet-stream');
  });

  test('the slow-client rule holds per append: a stalled PATCH is cut within two rate windows, keeps what arrived, and the upload goes on from there', { timeout: 60_000 }, async (t) => {
    const server = await fsServer(t);
    const limited = await serve(server.marketplace, { port: 0, uploadMinBytesPerSecond: 1024, uploadRateWindowSeconds: 1 });
    t.after(() => limited.close());
    const bytes = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 7) % 251);
    const { id, client, issued } = await declared(server, bytes.length);
    const url = new URL(issued.upload_url.replace(server.url, limited.url));
    assert.equal((await patch(url.toString(), 0, bytes.subarray(0, 50_000))).status, 204, 'a first append at full speed');
    // The second declares 150 KB, sends 20 KB, then nothing.
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => (answer += chunk));
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
    const stalledAt = Date.now();
    socket.write(
      `PATCH ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nTus-Resumable: 1.0.0\r\nContent-Type: application/offset+octet-stream\r\n` +
        `Upload-Offset: 50000\r\nContent-Length: 150000\r\n\r\n`,
    );
    socket.write(bytes.subarray(50_000, 70_000));
    const ms = (await closed) - stalledAt;
    // Cut like any upload, within two rate windows; what arrived is kept, as for a client gone
    // away (tus), and the answer says how far: the bytes need not be sent twice.
    assert.ok(ms < 8000, `answered and closed ${ms} ms after the stall began`);
    assert.match(answer, /^HTTP\/1\.1 204 /, answer);
    assert.match(answer, /\r\nupload-offset: 70000\r\n/i);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    const offset = Number((await head(url.toString())).headers.get('upload-offset'));
    assert.equal(offset, 70_000, 'HEAD reports what was kept');
    assert.equal((await patch(url.toString(), offset, bytes.subarray(offset))).status, 204);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const confirmed = await client.post(`/assets/${id}/confirm-file`, { storage_path: issued.storage_path, file_size: bytes.length, sha256 });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  });

  test("the MCP tool get_asset_upload_url tells of file_size and upload_url", async (t) => {
    const server = await startServer();
    t.after(() => server.close());
    const listed = await rpc(server, 'tools/list', {}, { token: server.seller.token });
    const tool = (listed.body.result.tools as { name: string; description: string }[]).find((x) => x.name === 'get_asset_upload_url')!;
    assert.match(tool.description, /file_size/);
    assert.match(tool.description, /upload_url/);
    assert.match(tool.description, /signed_url/);
  });
});
