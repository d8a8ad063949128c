/**
 * A file larger than 5 GiB to `marketkit serve` on fs (issue 29, "Tests"): through the single PUT
 * and through the resumable protocol (tus PATCHes), streamed from a generated zero stream. Each is
 * confirmed with the SHA-256 the test computed of the same bytes (the server refuses a mismatch
 * with 422), and the server's peak resident memory (VmHWM of the serve process) grows by less than
 * 64 MiB. Apart from the other upload tests, so that its time shows: about a minute per upload here.
 * Each file is deleted before the next is sent (5 GiB on disk at a time). MARKETKIT_BIG_UPLOAD_BYTES
 * sets another size, to try the test itself quickly.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startCliServer, tempDir, type ServerProcess } from '../fixtures/cli.js';
import { validAsset } from '../fixtures/server.js';

const MiB = 2 ** 20;
const GiB = 2 ** 30;
const size = Number(process.env.MARKETKIT_BIG_UPLOAD_BYTES ?? 5 * GiB + 3 * MiB + 17);
const tus = { 'tus-resumable': '1.0.0' };

/** The serve process's memory from /proc: its resident set now and its peak so far, in bytes. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/** The SHA-256 of `length` zero bytes (computed, not remembered). */
function zerosSha256(length: number): string {
  const hash = createHash('sha256');
  const block = Buffer.alloc(8 * MiB);
  for (let left = length; left > 0; left -= block.length) hash.update(left >= block.length ? block : block.subarray(0, left));
  return hash.digest('hex');
}

/** Sends `length` zero bytes as the body of one request with a Content-Length, at the pace the server reads them. */
function sendZeros(url: string, method: string, headers: Record<string, string>, length: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...headers, 'content-length': String(length) } }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    req.on('error', (error) => reject(new Error(`${method} of ${length} bytes: ${error.message}`)));
    const block = Buffer.alloc(4 * MiB);
    let left = length;
    const pump = () => {
      while (left > 0) {
        const piece = left >= block.length ? block : block.subarray(0, left);
        left -= piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end();
    };
    // Only once connected: until then a write is buffered and never pushes back (gigabytes of it).
    req.once('socket', (socket) => (socket.connecting ? socket.once('connect', pump) : pump()));
  });
}

async function api(server: ServerProcess, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.info.api}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.info.dev_seller.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe(`a file of ${size} bytes (over 5 GiB) on fs`, () => {
  test('through the single PUT, then through tus PATCHes: done, the SHA-256 right, the server\'s RSS grows by less than 64 MiB', { timeout: 600_000 }, async (t) => {
    const dir = tempDir(t);
    const server = await startCliServer(['--data-dir', join(dir, 'data'), '--max-upload-size', '6GiB']);
    t.after(() => server.stop('SIGKILL'));
    t.after(() => void (server.stderr() && t.diagnostic(`serve's stderr: ${server.stderr()}`)));
    const sha256 = zerosSha256(size);

    // Warm-up: a small file each way, so the baseline holds what any upload loads.
    const warm = (await api(server, 'POST', '/assets', validAsset())).body.id;
    const small = (await api(server, 'POST', `/assets/${warm}/upload-url`, { filename: 'small.bin' })).body;
    assert.equal((await sendZeros(small.signed_url, 'PUT', { 'content-type': 'application/octet-stream' }, 8 * MiB)).status, 200);
    const smallTus = (await api(server, 'POST', `/assets/${warm}/upload-url`, { filename: 'small.bin', file_size: 8 * MiB })).body;
    assert.equal((await sendZeros(smallTus.upload_url, 'PATCH', { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' }, 8 * MiB)).status, 204);
    const baseline = memoryOf(server.pid).peak;

    // The single PUT.
    let started = Date.now();
    const first = (await api(server, 'POST', '/assets', validAsset())).body.id;
    const issued = (await api(server, 'POST', `/assets/${first}/upload-url`, { filename: 'pack.bin' })).body;
    const putAnswer = await sendZeros(issued.signed_url, 'PUT', { 'content-type': 'application/octet-stream' }, size);
    assert.equal(putAnswer.status, 200, putAnswer.body);
    const confirmed = await api(server, 'POST', `/assets/${first}/confirm-file`, { storage_path: issued.storage_path, file_size: size, sha256 });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal((await api(server, 'GET', `/assets/${first}`)).body.file.sha256, sha256);
    const afterPut = memoryOf(server.pid);
    t.diagnostic(`single PUT: ${((Date.now() - started) / 1000).toFixed(1)} s; peak RSS ${(baseline / MiB).toFixed(0)} -> ${(afterPut.peak / MiB).toFixed(0)} MiB`);
    assert.ok(afterPut.peak - baseline < 64 * MiB, `the PUT grew the peak RSS by ${((afterPut.peak - baseline) / MiB).toFixed(1)} MiB`);
    assert.equal((await api(server, 'DELETE', `/assets/${first}`)).status, 200, 'deleted, its file with it, before the next');

    // The resumable protocol: PATCHes of 1 GiB, each at the offset the last one answered.
    started = Date.now();
    const second = (await api(server, 'POST', '/assets', validAsset())).body.id;
    const resumable = (await api(server, 'POST', `/assets/${second}/upload-url`, { filename: 'pack.bin', file_size: size })).body;
    let offset = 0;
    while (offset < size) {
      const length = Math.min(GiB, size - offset);
      const answer = await sendZeros(resumable.upload_url, 'PATCH', { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) }, length);
      assert.equal(answer.status, 204, answer.body);
      offset += length;
      const head = await fetch(resumable.upload_url, { method: 'HEAD', headers: tus });
      assert.equal(Number(head.headers.get('upload-offset')), offset);
    }
    const done = await api(server, 'POST', `/assets/${second}/confirm-file`, { storage_path: resumable.storage_path, file_size: size, sha256 });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.file.sha256, sha256);
    const afterTus = memoryOf(server.pid);
    t.diagnostic(`tus: ${((Date.now() - started) / 1000).toFixed(1)} s; peak RSS ${(baseline / MiB).toFixed(0)} -> ${(afterTus.peak / MiB).toFixed(0)} MiB`);
    assert.ok(afterTus.peak - baseline < 64 * MiB, `the resumable upload grew the peak RSS by ${((afterTus.peak - baseline) / MiB).toFixed(1)} MiB`);
    assert.equal((await api(server, 'DELETE', `/assets/${second}`)).status, 200);
  });
});
