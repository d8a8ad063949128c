/**
 * Every embedding guide's example (docs/examples/embedding/), started as its guide says on its
 * runtime, and driven through the marketplace it mounts under /market: the host app still answers
 * its own page, a listing is created, a file is uploaded to the signed URL and confirmed, an MCP
 * SDK client lists the tools, and the dashboard under /market/dashboard signs a seller in with a
 * link made by `admin.createSignInLink` and makes a token that works on REST. A guide whose code
 * stops working fails here.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { patternBytes } from '../../conformance/ports/index.js';
import { runScript, tempDir, type Runtime } from '../fixtures/cli.js';
import { connectSdkClient } from '../fixtures/mcp.js';
import { as, putSigned, validAsset } from '../fixtures/server.js';
import { hostedTools } from '../../core/mcp/tools.js';
import { browser, formTokenOf } from '../fixtures/dashboard.js';
import { demoSignInLink, openMarketplace } from '../../docs/examples/embedding/marketplace.js';

const examples: { file: string; runtime: Runtime; guide: string }[] = [
  { file: 'node-http.ts', runtime: 'node', guide: 'node-http.md' },
  { file: 'express.ts', runtime: 'node', guide: 'express.md' },
  { file: 'fastify.ts', runtime: 'node', guide: 'fastify.md' },
  { file: 'hono.ts', runtime: 'node', guide: 'hono.md' },
  { file: 'bun.ts', runtime: 'bun', guide: 'bun.md' },
  { file: 'deno.ts', runtime: 'deno', guide: 'deno.md' },
];

const root = new URL('../../', import.meta.url).pathname;

/** Starts an example; resolves with the address it mounted the marketplace at and the demo token it printed. */
function startExample(t: { after(fn: () => unknown): void }, file: string, runtime: Runtime, dataDir: string): Promise<{ market: string; token: string }> {
  const [command, ...args] = runScript(runtime, join(root, 'docs/examples/embedding', file));
  const child = spawn(command!, args, { cwd: root, env: { ...process.env, PORT: '0', MARKETKIT_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} printed no address within 30 s; stderr: ${stderr}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}); stderr: ${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^MarketKit mounted at (\S+) \(demo seller token: (smcp_\w+)\)$/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolve({ market: match[1]!, token: match[2]! });
    });
  });
}

/**
 * An example as its guide shows it: without its header comment, importing the package
 * (`marketkit/bindings/node`) where the repository's copy imports the sources.
 */
function asInGuide(file: string): string {
  return readFileSync(join(root, 'docs/examples/embedding', file), 'utf8')
    .replace(/^\/\*\*[\s\S]*?\*\/\n/, '')
    .replace(/'\.\.\/\.\.\/\.\.\/core\/index\.js'/g, "'marketkit'")
    .replace(/'\.\.\/\.\.\/\.\.\/((?:bindings|adapters)\/\w+)\/index\.js'/g, "'marketkit/$1'")
    .replace(/; \/\/ marketkit\/\S+$/gm, ';')
    .trim();
}

test('each guide in docs/embedding shows its example’s code as it runs, and the index the shared marketplace.ts', () => {
  for (const { file, guide } of [...examples, { file: 'marketplace.ts', guide: 'index.md' }]) {
    const text = readFileSync(join(root, 'docs/embedding', guide), 'utf8');
    assert.ok(text.includes(`\`\`\`ts\n${asInGuide(file)}\n\`\`\``), `docs/embedding/${guide} shows docs/examples/embedding/${file} as it is`);
  }
});

for (const { file, runtime } of examples) {
  test(`docs/examples/embedding/${file} on ${runtime}: the host app and the marketplace under /market, an upload through it, MCP beside it`, { timeout: 60_000 }, async (t) => {
    const dataDir = tempDir(t, 'marketkit-embedding-');
    const { market, token } = await startExample(t, file, runtime, dataDir);
    assert.ok(market.endsWith('/market'), market);
    const host = await fetch(new URL('/', market));
    assert.equal(await host.text(), 'the host app');

    const api = `${market}/api/v1`;
    const client = as({ api }, token);
    const created = await client.post('/assets', validAsset({ title: `Mounted in ${file}` }));
    assert.equal(created.status, 201);
    const issued = await client.post(`/assets/${created.body.id}/upload-url`, { filename: 'pack.zip' });
    assert.equal(issued.status, 200);
    assert.ok(issued.body.signed_url.startsWith(`${api}/blobs/`), `the signed URL carries the prefix: ${issued.body.signed_url}`);
    // Over Express's and Fastify's 1 MiB default body limits, which must not apply to uploads.
    const bytes = patternBytes(1_500_000, 5);
    assert.equal((await putSigned(issued.body.signed_url, bytes, 'application/zip')).status, 200);
    const confirmed = await client.post(`/assets/${created.body.id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: bytes.byteLength });
    assert.equal(confirmed.status, 200);
    assert.equal(statSync(join(dataDir, 'blobs', 'objects', issued.body.storage_path)).size, bytes.byteLength, 'the file is in the example’s blob directory');
    assert.equal((await client.get(`/assets/${created.body.id}`)).body.file.file_size, bytes.byteLength);

    const mcp = await connectSdkClient({ url: market }, token);
    t.after(() => mcp.close());
    assert.equal((await mcp.listTools()).tools.length, hostedTools.length);

    // The dashboard under the same mount: a link made beside the running example (the same SQLite file).
    const local = await openMarketplace(dataDir);
    t.after(() => (local.ports.storage as { close?: () => Promise<void> }).close?.());
    const site = market.replace('127.0.0.1', 'localhost');
    const link = await demoSignInLink(local, site);
    assert.match(link, new RegExp(`^${site}/dashboard/sign-in/[A-Za-z0-9_-]{43}$`), 'the link names localhost, under the mount');
    const b = browser({ url: new URL(site).origin });
    const path = new URL(link).pathname;
    assert.match((await b.send('GET', path)).text, new RegExp(`<form method="post" action="${path}">`), 'the link\'s GET shows Continue');
    const signedIn = await b.send('POST', path);
    assert.deepEqual([signedIn.status, signedIn.location], [303, '/market/dashboard/'], signedIn.text);
    assert.match(signedIn.cookie ?? '', /; Path=\/market\/dashboard; HttpOnly; SameSite=Lax/);
    const tokens = await b.send('GET', '/market/dashboard/tokens');
    assert.equal(tokens.status, 200);
    const form = { form_token: formTokenOf(tokens.text), name: `made in ${file}`, scopes: ['profile:read'], expires_in_days: '30' };
    const made = await b.send('POST', '/market/dashboard/tokens', { form });
    assert.equal(made.status, 200, made.text);
    const fromDashboard = /value="(smcp_[^"]+)"/.exec(made.text)?.[1];
    assert.equal((await fetch(`${api}/me`, { headers: { authorization: `Bearer ${fromDashboard}` } })).status, 200, 'the dashboard\'s token works on REST');
  });
}
