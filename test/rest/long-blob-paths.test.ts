/**
 * Pentest finding: an unauthenticated `GET /api/v1/blobs/assets/x/images/<5,000 x 'a'>` was a 500
 * (ENAMETOOLONG in the fs store), and each one logged a stack trace with the absolute data path.
 * Now the lengths are checked before any store is asked (414 URI_TOO_LONG), the paths the server
 * issues stay inside those bounds, and serve's log is one short line per error, bounded per client.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { memoryBlobs } from '../../adapters/memory/index.js';
import { createErrorLog } from '../../cli/serve-log.js';
import { storagePathLimits } from '../../core/operations/blob-urls.js';
import { startCliServer, tempDir } from '../fixtures/cli.js';
import { as, startServer, type TestServer } from '../fixtures/server.js';

const long = 'a'.repeat(5000);
const overlong = [
  `assets/x/images/${long}`,
  `assets/x/images/${'a'.repeat(storagePathLimits.segmentBytes + 1)}`,
  `assets/x/images/${'é'.repeat(128)}`, // 128 characters, 256 bytes
  `assets/x/images/${Array.from({ length: 8 }, () => 'b'.repeat(200)).join('/')}`, // every segment fits, not the whole
];

async function get(server: { url: string }, tail: string, init: RequestInit = {}) {
  const response = await fetch(`${server.url}/api/v1/blobs/${tail.split('/').map(encodeURIComponent).join('/')}`, init);
  return { status: response.status, body: (await response.json()) as { code: string; error: string } };
}

for (const store of ['memory', 'fs'] as const) {
  describe(`blob paths past the bounds, ${store} store`, () => {
    let server: TestServer;
    const reported: unknown[] = [];
    const root = mkdtempSync(join(tmpdir(), 'marketkit-long-'));
    after(() => rmSync(root, { recursive: true, force: true }));
    before(async () => {
      const blobs = store === 'fs' ? fsBlobs({ root }) : memoryBlobs();
      server = await startServer({ blobs, onError: (error) => void reported.push(error) });
    });
    after(() => server.close());

    test('GET and PUT are 414 URI_TOO_LONG, never a 5xx, and onError hears nothing', async () => {
      for (const tail of overlong) {
        const read = await get(server, tail);
        assert.deepEqual([read.status, read.body.code], [414, 'URI_TOO_LONG'], `GET ${tail.slice(0, 40)}… (${tail.length})`);
        const write = await get(server, tail, { method: 'PUT', body: 'x' });
        assert.deepEqual([write.status, write.body.code], [414, 'URI_TOO_LONG'], `PUT ${tail.slice(0, 40)}…`);
      }
      assert.deepEqual(reported, []);
    });

    test('paths at the bounds are a plain 404', async () => {
      const atBounds = [`assets/x/images/${'a'.repeat(storagePathLimits.segmentBytes)}`, `assets/x/images/${'é'.repeat(127)}`];
      for (const tail of atBounds) assert.deepEqual([(await get(server, tail)).status], [404], tail.slice(0, 40));
      assert.deepEqual(reported, []);
    });

    test('the storage paths the server issues stay inside the bounds, whatever the file name', async () => {
      const client = as(server, server.seller.token);
      const created = await client.post('/assets', { title: 'Long names', slug: `long-names-${store}` });
      for (const [kind, filename] of [
        ['upload-url', `${'ü'.repeat(251)}.zip`],
        ['images/upload-url', `${'x'.repeat(250)}.webp`],
      ]) {
        const issued = await client.post(`/assets/${created.body.id}/${kind}`, { filename });
        assert.equal(issued.status, 200, JSON.stringify(issued.body));
        const path: string = issued.body.storage_path;
        const encoder = new TextEncoder();
        assert.ok(encoder.encode(path).byteLength <= storagePathLimits.pathBytes, path);
        for (const segment of path.split('/')) assert.ok(encoder.encode(segment).byteLength <= storagePathLimits.segmentBytes, segment);
        const put = await fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': kind === 'upload-url' ? 'application/zip' : 'image/webp' }, body: 'bytes' });
        assert.equal(put.status, 200, `the issued URL itself is accepted: ${await put.text()}`);
      }
    });
  });
}

describe("serve's error log", () => {
  const dataDir = '/srv/marketkit-data';
  const nameTooLong = () =>
    Object.assign(new Error(`ENAMETOOLONG: name too long, open '${dataDir}/blobs/objects/assets/x/images/${long}'`), {
      code: 'ENAMETOOLONG',
      syscall: 'open',
      errno: -36,
      path: `${dataDir}/blobs/objects/assets/x/images/${long}`,
    });
  const request = (client = '203.0.113.7') => ({ method: 'GET', path: `/api/v1/blobs/assets/x/images/${long}`, requestId: 'r1', clientAddress: client });

  test('a system error is one short line: no stack, no data path, the client path cut short', () => {
    const lines: string[] = [];
    const log = createErrorLog({ write: (line) => lines.push(line), hidePaths: [dataDir] });
    log.onError(nameTooLong(), request());
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.ok(lines[0]!.length < 400, `${lines[0]!.length} characters`);
    assert.match(lines[0]!, /ENAMETOOLONG in open/);
    assert.doesNotMatch(lines[0]!, /marketkit-data|\n|\s+at /);
  });

  test('a flood from one client is bounded, and summed up as "N similar messages suppressed"', () => {
    const lines: string[] = [];
    let now = 0;
    const log = createErrorLog({ write: (line) => lines.push(line), now: () => now, hidePaths: [dataDir] });
    for (let i = 0; i < 10_000; i++) log.onError(nameTooLong(), request());
    assert.ok(lines.length <= 5, `${lines.length} lines for 10,000 errors`);
    log.flush();
    assert.match(lines.at(-1)!, /^marketkit: 9995 similar messages suppressed \(ENAMETOOLONG in open on GET \/api\/v1\/blobs\)$/);
    // A minute later a few more lines get through, the first saying what was held back meanwhile.
    for (let i = 0; i < 100; i++) log.onError(nameTooLong(), request());
    now += 60_000;
    log.onError(nameTooLong(), request());
    assert.match(lines.at(-2)!, /^marketkit: 100 similar messages suppressed/);
    const total = lines.join('\n');
    assert.doesNotMatch(total, /marketkit-data|\s+at /);
    assert.ok(total.length < 3000, `${total.length} characters of log for 10,101 errors`);
  });

  test('another client still gets a line while one floods; a bug shows its stack once, the data path hidden', () => {
    const lines: string[] = [];
    const log = createErrorLog({ write: (line) => lines.push(line), hidePaths: [dataDir], perSignature: { burst: 100, perMinute: 100 } });
    for (let i = 0; i < 50; i++) log.onError(nameTooLong(), request('198.51.100.1'));
    let before = lines.length;
    log.onError(nameTooLong(), request('198.51.100.2'));
    assert.ok(lines.slice(before).some((line) => line.includes('client 198.51.100.2')), lines.slice(before).join('\n'));
    assert.match(lines[before]!, /^marketkit: 45 similar messages suppressed/, 'what the flood held back comes out with the next line');
    before = lines.length - 1;
    const bug = new TypeError(`cannot read ${dataDir}/marketkit.db`);
    log.onError(bug, { ...request('198.51.100.3'), path: '/api/v1/assets' });
    log.onError(bug, { ...request('198.51.100.3'), path: '/api/v1/assets' });
    const tail = lines.slice(before + 1);
    assert.match(tail[0]!, /TypeError: cannot read <data>\/marketkit.db/);
    assert.ok(tail.filter((line) => /^\s+at /.test(line)).length >= 1, 'the stack, once');
    assert.equal(tail.filter((line) => line.startsWith('marketkit:')).length, 2);
    assert.equal(tail.filter((line) => /^\s+at /.test(line)).length, tail.length - 2, 'no second stack');
    assert.doesNotMatch(lines.join('\n'), /marketkit-data/);
  });
});

test('marketkit serve with its fs store: the long path is 414 with at most one short log line, no stack, no data path', async (t) => {
  const dir = tempDir(t);
  const server = await startCliServer(['--data-dir', dir]);
  t.after(() => server.stop('SIGKILL'));
  for (let i = 0; i < 20; i++) {
    const answer = await fetch(`${server.info.api}/blobs/assets/x/images/${long}`);
    assert.equal(answer.status, 414);
    assert.equal(((await answer.json()) as { code: string }).code, 'URI_TOO_LONG');
  }
  // The answer is sent before anything is logged; give a log line time to arrive.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const log = server.stderr().trim();
  const lines = log === '' ? [] : log.split('\n');
  assert.ok(lines.length <= 1, log);
  assert.ok(log.length < 400, `${log.length} characters of log`);
  assert.ok(!log.includes(dir) && !/\s+at /.test(log), log);
});
