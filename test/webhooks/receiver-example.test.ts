/**
 * The receiver of docs/webhooks.md (docs/examples/webhooks/receiver.mjs), run as a user runs it,
 * against `marketkit serve`: a seller creates an endpoint, submits a listing, an operator approves
 * it from the command line, and the receiver verifies and logs asset.submitted, then asset.published.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { runCli, startCliServer, tempDir } from '../fixtures/cli.js';
import { as, assetWithFile } from '../fixtures/server.js';

const root = new URL('../../', import.meta.url).pathname;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The example as a process; its stdout lines as they come. */
function startExample(secret: string, port: number) {
  const child = spawn(process.execPath, ['docs/examples/webhooks/receiver.mjs'], { cwd: root, env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => lines.push(...text.split('\n').filter(Boolean)));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const until = async (count: number, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (lines.length < count) {
      if (Date.now() > deadline) throw new Error(`the receiver printed ${JSON.stringify(lines)}; stderr: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return lines;
  };
  return { lines, until, stop: () => child.kill('SIGTERM') };
}

test('docs/webhooks.md quotes the receiver example as it is', () => {
  const doc = readFileSync(`${root}docs/webhooks.md`, 'utf8');
  const [, block] = /<!-- from docs\/examples\/webhooks\/receiver\.mjs -->\n```js\n([\s\S]*?)```/.exec(doc) ?? [];
  assert.ok(block, 'the receiver is quoted');
  assert.equal(block, readFileSync(`${root}docs/examples/webhooks/receiver.mjs`, 'utf8'));
});

test('the receiver example gets asset.submitted, then asset.published when an operator approves, and refuses what it cannot verify', async (t) => {
  const dir = tempDir(t);
  const server = await startCliServer(['--data-dir', dir, '--webhooks-allow-local']);
  t.after(() => server.stop());
  const token = server.info.dev_seller.token!;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/marketkit`;
  const created = await as(server.info, token).post('/webhooks', { url, event_types: ['asset.submitted', 'asset.published'] });
  assert.equal(created.status, 201);
  const receiver = startExample(created.body.secret, port);
  t.after(() => receiver.stop());
  await receiver.until(1);
  assert.equal(receiver.lines[0], `receiving on http://127.0.0.1:${port}`);

  const { id } = await assetWithFile(server.info, token);
  assert.equal((await as(server.info, token).post(`/assets/${id}/submit`)).body.status, 'pending');
  await receiver.until(2);
  // Another process (the operator's command line) approves; the server's worker delivers its event.
  const approved = await runCli(['admin', 'approve', id, '--data-dir', dir]);
  assert.equal(approved.code, 0, approved.stderr);
  const lines = (await receiver.until(3)).slice(1).map((line) => JSON.parse(line));
  assert.deepStrictEqual(
    lines.map((l) => [l.type, l.listing, l.status]),
    [
      ['asset.submitted', id, 'pending'],
      ['asset.published', id, 'published'],
    ],
  );

  // A forged delivery (another secret) is 400 and changes nothing; a signed one twice is handled once.
  const body = JSON.stringify({ id: crypto.randomUUID(), type: 'asset.updated', timestamp: new Date().toISOString(), account_id: server.info.dev_seller.id, sequence: 1, data: { asset: { id: crypto.randomUUID(), status: 'draft' } } });
  const send = (secret: string, messageId: string) => {
    const now = new Date();
    const headers = { 'content-type': 'application/json', 'webhook-id': messageId, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(messageId, now, body) };
    return fetch(url, { method: 'POST', headers, body });
  };
  const forged = await send(`whsec_${Buffer.from('not the secret at all!!!').toString('base64')}`, JSON.parse(body).id);
  assert.equal(forged.status, 400);
  assert.match(await forged.text(), /not verified: No matching signature found/);
  assert.equal((await send(created.body.secret, JSON.parse(body).id)).status, 204);
  assert.equal((await send(created.body.secret, JSON.parse(body).id)).status, 204);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(receiver.lines.length, 4, 'the duplicate was answered and not handled again');
});
