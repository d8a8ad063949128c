/**
 * The code blocks of docs/uploads.md, run as written: the typed client's resumable uploadFile and
 * tus-js-client against upload_url. Each block is taken from the page (never a copy of it), given
 * the variables its prose names (baseUrl, token, assetId; upload_url and size), its package imports
 * pointed at this checkout's sources, and run as a child process beside node_modules.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCommand } from '../client/run-command.js';
import { tempDir } from '../fixtures/cli.js';
import { as, startServer, validAsset } from '../fixtures/server.js';

const root = new URL('../../', import.meta.url).pathname;
const page = readFileSync(join(root, 'docs/uploads.md'), 'utf8');

/** The first fenced block of `language` after `heading`. */
function block(heading: string, language: string): string {
  const from = page.indexOf(heading);
  assert.ok(from >= 0, `docs/uploads.md has "${heading}"`);
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(page.slice(from));
  assert.ok(match, `a ${language} block follows "${heading}"`);
  return match[1]!;
}

/** Writes `code` where its bare imports resolve (beside node_modules) and runs it in `cwd`. */
async function runSnippet(name: string, code: string, cwd: string, env: Record<string, string> = {}) {
  const dir = join(root, 'node_modules/.cache/marketkit-doc-snippets');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.pid}-${name}`);
  writeFileSync(file, code);
  try {
    return await runCommand(process.execPath, ['--import', import.meta.resolve('tsx'), file], env, cwd);
  } finally {
    rmSync(file, { force: true });
  }
}

const size = 70 * 1024 * 1024; // past the typed client's 64 MiB threshold: the resumable way
function packBytes(): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i += 4096) bytes.writeUInt32LE(i, i);
  return bytes;
}

test('docs/uploads.md: the typed client block uploads a 70 MiB pack resumably, and the server keeps its SHA-256', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const dir = tempDir(t, 'marketkit-doc-client-');
  const bytes = packBytes();
  writeFileSync(join(dir, 'pack.zip'), bytes);
  const seller = as(server, server.seller.token);
  const assetId = (await seller.post('/assets', validAsset())).body.id as string;
  const code =
    `const baseUrl = ${JSON.stringify(server.url)}, token = ${JSON.stringify(server.seller.token)}, assetId = ${JSON.stringify(assetId)};\n` +
    block('### The typed client', 'ts')
      .replace(`'marketkit/client'`, JSON.stringify(join(root, 'client/index.ts')))
      .replace(`'marketkit/bindings/node'`, JSON.stringify(join(root, 'bindings/node/index.ts')));
  const run = await runSnippet('typed-client.mts', code, dir, { XDG_STATE_HOME: join(dir, 'state') });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`^${size} of ${size}$`, 'm'), 'the last progress line is the whole file');
  const detail = (await seller.get(`/assets/${assetId}`)).body;
  assert.equal(detail.file.file_size, size);
  assert.equal(detail.file.sha256, createHash('sha256').update(bytes).digest('hex'));
});

test('docs/uploads.md: the tus-js-client block sends a pack to upload_url, which confirm-file then takes with its sha256', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const dir = tempDir(t, 'marketkit-doc-tus-');
  const bytes = packBytes().subarray(0, 20 * 1024 * 1024);
  writeFileSync(join(dir, 'pack.zip'), bytes);
  const seller = as(server, server.seller.token);
  const assetId = (await seller.post('/assets', validAsset())).body.id as string;
  const issued = (await seller.post(`/assets/${assetId}/upload-url`, { filename: 'pack.zip', file_size: bytes.byteLength })).body;
  const code = `const upload_url = ${JSON.stringify(issued.upload_url)}, size = ${bytes.byteLength};\n` + block('With tus-js-client 4 in Node', 'js');
  const run = await runSnippet('tus-js-client.mjs', code, dir);
  assert.equal(run.code, 0, run.stderr);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const confirmed = await seller.post(`/assets/${assetId}/confirm-file`, { storage_path: issued.storage_path, file_size: bytes.byteLength, sha256 });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  assert.equal((await seller.get(`/assets/${assetId}`)).body.file.sha256, sha256);
});
