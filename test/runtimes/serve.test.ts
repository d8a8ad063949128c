/**
 * `marketkit serve` on the real Node, Bun and Deno (the binaries of the npm packages), each on
 * SQLite and filesystem blobs in a fresh data directory: the same REST upload flow and the same
 * MCP SDK client session against each, so that every runtime serves the same marketplace.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { patternBytes } from '../../conformance/ports/index.js';
import { runCli, startCliServer, type Runtime, type ServerProcess } from '../fixtures/cli.js';
import { connectSdkClient } from '../fixtures/mcp.js';
import { as, call, pngBytes, putSigned, uploadFile, uploadImage, validAsset, type TestServer } from '../fixtures/server.js';
import { hostedTools } from '../../core/mcp/tools.js';
import { launchChromium } from '../fixtures/dashboard.js';
import { needs } from '../fixtures/parts.js';

const chromiumTest = needs('chromium').test;

const runtimes: Runtime[] = ['node', 'bun', 'deno'];

for (const runtime of runtimes) {
  describe(`marketkit serve on ${runtime}, SQLite and filesystem blobs`, () => {
    let dir: string;
    let server: ServerProcess;
    let token: string;
    /** What the shared fixtures need of a server: its API address. */
    let site: TestServer;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), `marketkit-${runtime}-`));
      server = await startCliServer(['--data-dir', dir], {}, runtime);
      token = server.info.dev_seller.token!;
      site = { url: server.info.url, api: server.info.api } as TestServer;
    });

    after(async () => {
      // Ctrl-C stops it cleanly (the database closed), on every runtime.
      const stopped = await server?.stop('SIGINT');
      rmSync(dir, { recursive: true, force: true });
      assert.deepEqual(stopped, { code: 0, signal: null }, `marketkit serve on ${runtime} stops with exit code 0 on SIGINT`);
    });

    test('it stores in SQLite and on the filesystem inside its data directory', async () => {
      assert.deepEqual(server.info.storage, { kind: 'sqlite', database: join(dir, 'marketkit.db'), blobs: join(dir, 'blobs') });
      assert.ok(statSync(join(dir, 'marketkit.db')).size > 0, 'the database file exists');
      const health = await as(site, null).get('/health');
      assert.equal(health.status, 200);
      assert.deepEqual(health.body.checks, { storage: 'ok', blobs: 'ok' });
    });

    test('the REST upload flow ends pending, and the uploaded bytes are a file in the blob directory', async () => {
      const client = as(site, token);
      const created = await client.post('/assets', validAsset({ title: `Castle Pack on ${runtime}` }));
      assert.equal(created.status, 201);
      const id: string = created.body.id;
      // Large enough to arrive in many chunks: the signed-URL PUT streams it into the store.
      const bytes = patternBytes(3_000_000, 11);
      const file = await uploadFile(site, token, id, bytes);
      assert.equal(file.file.file_size, bytes.byteLength);
      assert.equal(statSync(join(dir, 'blobs', 'objects', file.file.storage_path)).size, bytes.byteLength);
      const image = await uploadImage(site, token, id, pngBytes);
      assert.equal(image.status, 201);
      assert.equal(image.body.is_primary, true);
      const submitted = await client.post(`/assets/${id}/submit`);
      assert.equal(submitted.status, 200);
      assert.equal(submitted.body.status, 'pending');
      const fetched = await client.get(`/assets/${id}`);
      assert.equal(fetched.body.images.length, 1);
      assert.equal(fetched.body.file.storage_path, file.file.storage_path);
    });

    // In Chromium, so that the passkey's registration and sign-in run on this runtime's WebAuthn
    // library and crypto (Chromium's virtual authenticator; the link names localhost, as passkeys need).
    chromiumTest('the dashboard: the first start’s sign-in link signs in; a passkey is added, signs in again after signing out; a token made on the tokens page works on REST', { timeout: 120_000 }, async () => {
      const link = (JSON.parse(server.stdout().split('\n')[0]!) as { dashboard_sign_in?: string }).dashboard_sign_in;
      assert.ok(link, `marketkit serve on ${runtime} prints a sign-in link at the first start`);
      const origin = new URL(link).origin;
      assert.equal(new URL(link).hostname, 'localhost');
      const chromium = await launchChromium();
      try {
        const context = await chromium.newContext();
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('pageerror', (error) => problems.push(error.message));
        const cdp = await context.newCDPSession(page);
        await cdp.send('WebAuthn.enable');
        await cdp.send('WebAuthn.addVirtualAuthenticator', { options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true } });
        await page.goto(link);
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.waitForURL(`${origin}/dashboard/`);
        await page.goto(`${origin}/dashboard/passkeys`);
        await page.getByLabel('Name').fill(`Key on ${runtime}`);
        await page.getByRole('button', { name: 'Add a passkey' }).click();
        await page.getByRole('row', { name: new RegExp(`Key on ${runtime}`) }).waitFor();
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForURL(`${origin}/dashboard/sign-in`);
        await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
        await page.waitForURL(`${origin}/dashboard/`);

        await page.goto(`${origin}/dashboard/tokens`);
        await page.locator('input[name=name]').fill(`on ${runtime}`);
        await page.locator('form[action$="/tokens"] button[type=submit]').click();
        await page.waitForURL(`${origin}/dashboard/tokens`);
        const made = await page.getByLabel('The new token').inputValue();
        assert.match(made, /^smcp_/);
        assert.equal((await as(site, made).get('/me')).status, 200, 'the token works on REST');
        assert.deepEqual(problems, [], 'no script error');
      } finally {
        await chromium.close();
      }
    });

    test('a signed URL refuses an altered signature and a body over the limit, keeping nothing', async () => {
      const client = as(site, token);
      const created = await client.post('/assets', validAsset());
      const issued = await client.post(`/assets/${created.body.id}/images/upload-url`, { filename: 'big.png' });
      const altered = issued.body.signed_url.replace(/signature=(.)/, (_: string, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`);
      assert.notEqual(altered, issued.body.signed_url);
      assert.equal((await putSigned(altered, pngBytes, 'image/png')).status, 403);
      // Over the 10 MiB image limit: refused while streaming, 413, and no object left behind.
      const tooBig = await putSigned(issued.body.signed_url, patternBytes(10 * 1024 * 1024 + 1, 3), 'image/png');
      assert.equal(tooBig.status, 413);
      assert.equal(tooBig.body.code, 'PAYLOAD_TOO_LARGE');
      const confirm = await client.post(`/assets/${created.body.id}/confirm-image`, { public_url: issued.body.public_url });
      assert.equal(confirm.status, 400, 'nothing was stored');
    });

    test('a refused body is answered 413 every time, never a reset, and the connection carries the next request', async () => {
      // The client is still sending when the server refuses; answering and closing with its bytes
      // unread makes the kernel reset the connection, and the client sees ECONNRESET instead of the
      // 413 (docs/security.md, "Refused bodies"). Each try is refused by its declared length, the
      // worst case: not one byte of the body was read when the answer was made.
      const client = as(site, token);
      const created = await client.post('/assets', validAsset());
      const tooBigImage = patternBytes(10 * 1024 * 1024 + 1, 5);
      const statuses: Array<number | string> = [];
      for (let i = 0; i < 12; i++) {
        const issued = await client.post(`/assets/${created.body.id}/images/upload-url`, { filename: `big-${i}.png` });
        statuses.push(await putSigned(issued.body.signed_url, tooBigImage, 'image/png').then((r) => r.status, (error: Error) => `${error.message}: ${(error.cause as Error)?.message}`));
        // A JSON body over the 1 MiB limit, then a normal call on the same keep-alive pool.
        const bulky = await call(site, 'POST', '/assets', { token, body: validAsset({ description: 'x'.repeat(1_200_000) }) }).then((r) => r.status, (error: Error) => `${error.message}: ${(error.cause as Error)?.message}`);
        statuses.push(bulky, (await client.get(`/assets/${created.body.id}`)).status);
      }
      assert.deepEqual(statuses, Array.from({ length: 12 }, () => [413, 413, 200]).flat());
    });

    test('a second server on its port fails with the port-in-use message instead of sharing the port', { timeout: 20_000 }, async () => {
      const port = new URL(server.info.url).port;
      const second = await runCli(['serve', '--memory', '--port', port], {}, runtime);
      assert.equal(second.code, 1);
      assert.match(second.stderr, /the port is already in use/);
    });

    test('a 256 MiB upload streams to the blob directory: the server’s peak memory grows by less than half the file', { timeout: 120_000 }, async (t) => {
      if (process.platform !== 'linux') return t.skip('reads the peak resident memory from /proc (Linux only)');
      const peakMiB = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024;
      const client = as(site, token);
      const created = await client.post('/assets', validAsset());
      const issued = await client.post(`/assets/${created.body.id}/upload-url`, { filename: 'big.zip' });
      const size = 256 * 1024 * 1024;
      const chunk = patternBytes(1024 * 1024, 9);
      let sent = 0;
      // Generated as it is sent: the test process holds one MiB of it at a time, too.
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= size) return controller.close();
          controller.enqueue(chunk.slice());
          sent += chunk.byteLength;
        },
      });
      const before = peakMiB();
      const put = await fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body, duplex: 'half' } as RequestInit);
      assert.equal(put.status, 200, await put.text());
      const grown = peakMiB() - before;
      // Staged until confirm-file moves it to its storage path (docs/security.md, "Uploads").
      assert.equal(statSync(join(dir, 'blobs', 'objects', 'staging', issued.body.storage_path)).size, size);
      // Buffered whole, the body would add at least its own size; streamed, the growth is the
      // runtime's buffers and garbage not yet collected (measured: up to about 50 MiB on Bun, 90 on Deno).
      assert.ok(grown < size / 2 / 1024 / 1024, `the peak resident memory grew by ${grown.toFixed(0)} MiB for a 256 MiB upload`);
      const confirmed = await client.post(`/assets/${created.body.id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: size });
      assert.equal(confirmed.status, 200);
      assert.equal(statSync(join(dir, 'blobs', 'objects', issued.body.storage_path)).size, size, 'confirm moved it into place');
    });

    describe('the MCP SDK client', () => {
      let mcp: Client;
      before(async () => {
        mcp = await connectSdkClient(site, token);
      });
      after(() => mcp?.close());

      test('initializes and lists the hosted tools', async () => {
        assert.equal(mcp.getServerVersion()?.name, 'marketkit');
        const { tools } = await mcp.listTools();
        assert.equal(tools.length, hostedTools.length);
        assert.ok(tools.some((tool) => tool.name === 'submit_asset'));
      });

      test('runs the upload flow by tool calls and a PUT, ending pending', async () => {
        const call = async (name: string, args: Record<string, unknown> = {}) => (await mcp.callTool({ name, arguments: args })) as { structuredContent: any; isError?: boolean };
        const health = await call('health_check');
        assert.deepEqual(health.structuredContent, { ok: true, user_id: server.info.dev_seller.id, checks: { storage: 'ok', blobs: 'ok' } });
        const created = await call('create_asset', validAsset({ title: `MCP Pack on ${runtime}` }));
        const asset_id: string = created.structuredContent.id;
        const bytes = new TextEncoder().encode('PK\u0003\u0004 a zip by MCP');
        const url = (await call('get_asset_upload_url', { asset_id, filename: 'pack.zip' })).structuredContent;
        assert.equal((await putSigned(url.signed_url, bytes, 'application/zip')).status, 200);
        const confirmed = await call('confirm_asset_file', { asset_id, storage_path: url.storage_path, file_size: bytes.byteLength });
        assert.equal(confirmed.isError, undefined);
        const submitted = await call('submit_asset', { asset_id });
        assert.equal(submitted.structuredContent.status, 'pending');
        const refused = await call('delete_asset', { asset_id });
        assert.equal(refused.isError, true);
        assert.equal(refused.structuredContent.code, 'NOT_DRAFT');
      });
    });
  });
}
