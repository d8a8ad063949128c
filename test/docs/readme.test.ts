/**
 * The README as a new user reads it: its curl walk-through runs as pasted (against a live server,
 * its address swapped for the test's), its sample start-up output is what `marketkit serve` prints,
 * and the mistake a pasted script makes most (an unset $ID) gets a 404 that names it.
 */
import { curlWithJson } from '../fixtures/curl.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { as, startServer, webpBytes } from '../fixtures/server.js';
import { startCli, tempDir } from '../fixtures/cli.js';

const run = promisify(execFile);
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The first fenced block after `heading`, of the given info string. */
function blockAfter(heading: string, info: string): string {
  const from = readme.indexOf(heading);
  assert.ok(from >= 0, `README has "${heading}"`);
  const match = new RegExp('```' + info + '\\n([\\s\\S]*?)\\n```').exec(readme.slice(from));
  assert.ok(match, `a \`\`\`${info} block after "${heading}"`);
  return match[1]!;
}

test('the README’s curl walk-through runs as pasted and takes Castle Pack to pending, with its file and image', async (t) => {
  if (!(await curlWithJson(t, 'the README walk-through'))) return;
  const server = await startServer();
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-readme-'));
  try {
    writeFileSync(join(dir, 'pack.zip'), crypto.getRandomValues(new Uint8Array(2500)));
    writeFileSync(join(dir, 'cover.webp'), webpBytes);
    const script = blockAfter('## The upload flow with curl', 'sh').replaceAll('http://127.0.0.1:8787', server.url);
    const { stdout } = await run('bash', ['-e', '-c', script], { cwd: dir, env: { ...process.env, TOKEN: server.seller.token } });
    const id = /^listing ([0-9a-f-]{36})$/m.exec(stdout)?.[1];
    assert.ok(id, `the script printed the listing's id: ${stdout}`);
    const asset = (await as(server, server.seller.token).get(`/assets/${id}`)).body;
    assert.deepEqual([asset.slug, asset.status, asset.file.file_size, asset.images.length], ['castle-pack', 'pending', 2500, 1]);
    assert.match(stdout, /"status":"pending"/, 'each step prints its answer');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});

test('an unset $ID (an empty path segment) gets a 404 that names the likely cause', async () => {
  const server = await startServer();
  try {
    const answer = await as(server, server.seller.token).post('/assets//upload-url', { filename: 'pack.zip' });
    assert.equal(answer.status, 404);
    assert.match(answer.body.error, /empty segment \(\/\/\): is a variable such as \$ID in it unset\?/);
    const plain = await as(server, server.seller.token).get('/nothing-here');
    assert.equal(plain.body.error, 'No such endpoint.', 'other 404s stay short');
  } finally {
    await server.close();
  }
});

test('the README’s sample start-up output is what marketkit serve prints on a first start', async (t) => {
  const dir = join(tempDir(t), '.marketkit');
  const server = await startCli(['serve', '--port', '0', '--data-dir', dir], (out) => out.includes('Stop with Ctrl-C.'));
  t.after(() => server.stop('SIGKILL'));
  const printed = server.stdout();
  const url = /is serving (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)![1]!;
  const normalized = printed
    .replaceAll(url, 'http://127.0.0.1:8787')
    .replaceAll(url.replace('127.0.0.1', 'localhost'), 'http://localhost:8787')
    .replace(/\/sign-in\/[A-Za-z0-9_-]+/, '/sign-in/...')
    .replaceAll(dir.slice(0, -'/.marketkit'.length), '...')
    .replace(/smcp_[A-Za-z0-9]+/, 'smcp_...')
    .split('\n');
  const sample = /```\n(MarketKit [\s\S]*?)\n```/.exec(readme)![1]!.split('\n');
  assert.deepEqual(normalized.slice(0, sample.length), sample);
});
