import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { nodeApiReference } from '../../bindings/node/index.js';
import { generateOpenApi } from '../../core/http/openapi.js';
import { call, startServer, type TestServer } from '../fixtures/server.js';
import { needs, partPath } from '../fixtures/parts.js';

const run = promisify(execFile);

/** The page's DOM after its scripts ran, as headless Chromium renders it. */
async function renderedDom(chromium: string, url: string): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), 'marketkit-chromium-'));
  try {
    const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, '--virtual-time-budget=20000', '--dump-dom', url];
    const { stdout } = await run(chromium, flags, { timeout: 90_000, maxBuffer: 32 * 1024 * 1024 });
    return stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

let server: TestServer;
before(async () => {
  server = await startServer({ apiReference: nodeApiReference() });
});
after(() => server.close());

test('the reference page and its files are served from the installed package, under a same-origin CSP', async () => {
  const page = await fetch(`${server.api}/docs`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  const html = await page.text();
  assert.ok(!/https?:\/\/(?!127\.0\.0\.1)/.test(html.replace(/http:\/\/127\.0\.0\.1:\d+/g, '')), 'no address outside this server');
  for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js']) {
    assert.equal((await fetch(`${server.api}/docs/${file}`)).status, 200, file);
  }
  assert.equal((await call(server, 'GET', '/docs/package.json')).status, 404, 'only the files the page uses are served');
  const plain = await startServer();
  try {
    assert.equal((await call(plain, 'GET', '/docs')).status, 404, 'without apiReference the page is not there');
  } finally {
    await plain.close();
  }
});

test('in headless Chromium, the page shows every operation, and an operation with its responses and errors', { timeout: 240_000, skip: needs('chromium').skip }, async () => {
  const chromium = partPath('chromium');
  const document = generateOpenApi(server.url) as { paths: Record<string, Record<string, { operationId: string }>> };
  const operationIds = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
  const dom = await renderedDom(chromium, `${server.api}/docs`);
  const shown = [...dom.matchAll(/opblock-summary-operation-id">([^<]+)</g)].map((m) => m[1]);
  assert.deepEqual([...shown].sort(), [...operationIds].sort(), 'every operation is on the page');

  const expanded = await renderedDom(chromium, `${server.api}/docs#/Assets/createAsset`);
  const codes = [...new Set([...expanded.matchAll(/data-code="(\d+)"/g)].map((m) => m[1]))];
  assert.deepEqual(codes.sort(), ['201', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503']);
  assert.match(expanded, /NOT_A_SELLER/, 'the error codes of a status are shown');
  assert.match(expanded, /Castle Pack/, 'the example body is shown');
});
