/**
 * Resumable uploads to `marketkit serve` on fs, through kills: a real tus client (tus-js-client, in
 * a child process) SIGKILLed part-way and resumed by a new process from the server's offset, and
 * the server itself SIGKILLed in the middle of an append.
 */
import assert from 'node:assert/strict';
import { openSync, readSync, closeSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startCliServer, tempDir, type ServerProcess } from '../fixtures/cli.js';
import { validAsset } from '../fixtures/server.js';
import { apiCall, bigFile, killedAndResumed, offsetOf, tusHeaders } from '../fixtures/tus.js';

const MiB = 2 ** 20;
const tus = tusHeaders;

const api = (server: ServerProcess, method: string, path: string, body?: unknown, token: string | null = server.info.dev_seller.token) => apiCall(server.info.api, token!, method, path, body);

describe('resumable uploads through kills (fs, SQLite upload state)', () => {
  test('tus-js-client SIGKILLed part-way; a new process resumes from the server offset; the stored SHA-256 is the file\'s', async (t) => {
    const dir = tempDir(t);
    const server = await startCliServer(['--data-dir', join(dir, 'data')]);
    t.after(() => server.stop('SIGKILL'));
    const file = bigFile(dir, 256);
    const asset = await api(server, 'POST', '/assets', validAsset());
    const issued = await api(server, 'POST', `/assets/${asset.body.id}/upload-url`, { filename: 'pack.bin' });
    const uploadUrl: string = issued.body.upload_url;

    await killedAndResumed(t, dir, file, uploadUrl);

    const confirmed = await api(server, 'POST', `/assets/${asset.body.id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: file.size, sha256: file.sha256 });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal(confirmed.body.file.sha256, file.sha256);
  });

  test('the server SIGKILLed mid-append: after restart HEAD reports an offset whose bytes are all there, and the upload completes with the right hash', async (t) => {
    const dir = tempDir(t);
    const data = join(dir, 'data');
    const file = bigFile(dir, 48);
    let server = await startCliServer(['--data-dir', data]);
    t.after(() => server.stop('SIGKILL'));
    // The dev seller's token is printed on the first start only.
    const token = server.info.dev_seller.token;
    const asset = await api(server, 'POST', '/assets', validAsset());
    const issued = await api(server, 'POST', `/assets/${asset.body.id}/upload-url`, { filename: 'pack.bin', file_size: file.size });
    const urlOn = (s: ServerProcess) => issued.body.upload_url.replace(/^https?:\/\/[^/]+/, s.info.url);
    const bytes = (from: number, to: number) => {
      const buffer = Buffer.alloc(to - from);
      const fd = openSync(file.path, 'r');
      readSync(fd, buffer, 0, buffer.length, from);
      closeSync(fd);
      return buffer;
    };
    const patch = (url: string, from: number, body: Buffer) =>
      fetch(url, { method: 'PATCH', headers: { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(from) }, body: new Uint8Array(body) });
    assert.equal((await patch(urlOn(server), 0, bytes(0, 8 * MiB))).status, 204);

    // A second append, streamed slowly, cut by SIGKILL after some of it arrived.
    const cut = new URL(urlOn(server));
    const sending = request(cut, { method: 'PATCH', headers: { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(8 * MiB), 'content-length': String(24 * MiB) } });
    sending.on('error', () => {});
    sending.write(bytes(8 * MiB, 18 * MiB));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.stop('SIGKILL');
    sending.destroy();

    server = await startCliServer(['--data-dir', data]);
    const url = urlOn(server);
    const offset = await offsetOf(url);
    assert.ok(offset === 8 * MiB || offset === 18 * MiB, `HEAD reports an acknowledged offset (${offset})`);
    // The killed append's hold lapses after at most 30 s: 423 UPLOAD_LOCKED until then.
    let answer: Response;
    for (let tries = 0; ; tries++) {
      answer = await patch(url, offset, bytes(offset, file.size));
      if (answer.status !== 423 || tries > 40) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    assert.equal(answer.status, 204, await answer.text());
    const confirmed = await api(server, 'POST', `/assets/${asset.body.id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: file.size, sha256: file.sha256 }, token);
    assert.equal(confirmed.status, 200, 'the bytes before the offset were all there: the whole file hashes right');
    assert.equal(confirmed.body.file.sha256, file.sha256);
  });
});
