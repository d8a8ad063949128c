import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runCli, startCliServer } from '../fixtures/cli.js';
import { validAsset } from '../fixtures/server.js';
import { parseSize } from '../../cli/size-flags.js';

describe('marketkit serve: upload size limits', () => {
  test('sizes are read as people write them: 20GiB, 500MB, plain bytes; anything else is refused', () => {
    assert.equal(parseSize('20GiB'), 20 * 2 ** 30);
    assert.equal(parseSize('500MB'), 500_000_000);
    assert.equal(parseSize('1.5 KiB'), 1536);
    assert.equal(parseSize('1048576'), 1048576);
    for (const bad of ['', '0', '-5', '12XB', '1.5', 'GiB', '1e9']) assert.equal(parseSize(bad), null, bad);
  });

  test('--help states both limits and their defaults', async () => {
    const run = await runCli(['serve', '--help']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /--max-upload-size <size>[\s\S]*MARKETKIT_MAX_UPLOAD_SIZE[\s\S]*default 20 GiB/);
    assert.match(run.stdout, /--max-image-size <size>[\s\S]*default 10 MiB/);
  });

  test('a bad size is refused at start, naming the flag', async () => {
    const run = await runCli(['serve', '--memory', '--port', '0', '--max-upload-size', 'lots']);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /max-upload-size must be a size such as 20GiB/);
  });

  test('MARKETKIT_MAX_UPLOAD_SIZE bounds upload-url (413 naming file_size) and the OpenAPI document states it', async (t) => {
    const server = await startCliServer(['--memory', '--max-image-size', '64KiB'], { MARKETKIT_MAX_UPLOAD_SIZE: '1MiB' });
    t.after(() => server.stop());
    const api = server.info.api;
    const headers = { authorization: `Bearer ${server.info.dev_seller.token}`, 'content-type': 'application/json' };
    const created = await (await fetch(`${api}/assets`, { method: 'POST', headers, body: JSON.stringify(validAsset()) })).json();
    const ask = (file_size: number) => fetch(`${api}/assets/${created.id}/upload-url`, { method: 'POST', headers, body: JSON.stringify({ filename: 'pack.zip', file_size }) });
    const over = await ask(2 ** 20 + 1);
    assert.equal(over.status, 413);
    const body = await over.json();
    assert.equal(body.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(body.details[0].path, 'file_size');
    assert.equal((await ask(2 ** 20)).status, 200, 'exactly the limit is fine');
    const document = await (await fetch(`${api}/openapi.json`)).json();
    assert.deepEqual(document.info['x-upload-limits'], { file_bytes: 2 ** 20, image_bytes: 64 * 1024 });
    assert.match(document.info.description, /a listing file up to 1 MiB, a gallery image up to 64 KiB/);
  });
});
