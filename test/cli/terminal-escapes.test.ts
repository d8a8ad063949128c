/**
 * Security finding 3 of wave 2 (docs/security.md, "Text fields"): titles, display names and webhook
 * URLs kept control characters, and `marketkit admin queue` and `admin webhooks` printed them raw,
 * so a seller's `{"title":"Legit\u001b[2K\r  <a forged row>"}` overwrote a moderator's line with a
 * forged one. Now single-line fields refuse them, a webhook URL is stored as it was validated, and
 * every CLI output escapes what a terminal could act on (also in data stored before the rule).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { sqliteStorage } from '../../adapters/sqlite/index.js';
import { runCli, tempDir } from '../fixtures/cli.js';
import { as, assetWithFile, startServer, validAsset } from '../fixtures/server.js';

const forged = 'Legit\u001b[2K\r  00000000-0000-0000-0000-000000000000  pending            <a forged row>';
const actedOn = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

test('control and bidirectional-override characters are refused in single-line fields and webhook URLs; the URL kept is the one validated', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const seller = as(server, server.seller.token);
  const refused = async (answer: Promise<{ status: number; body: any }>, field: string, what: string) => {
    const { status, body } = await answer;
    assert.equal(status, 400, `${what}: ${JSON.stringify(body)}`);
    assert.equal(body.details[0].path, field, what);
  };
  await refused(seller.post('/assets', validAsset({ title: forged })), 'title', 'the forged title');
  await refused(seller.post('/assets', validAsset({ title: 'Pack \u202egnp.exe' })), 'title', 'a right-to-left override');
  await refused(seller.post('/assets', validAsset({ title: 'Lone \ud800 surrogate' })), 'title', 'a lone surrogate');
  await refused(seller.post('/assets', validAsset({ tags: ['ok', 'line\nbreak'] })), 'tags[1]', 'a tag with LF');
  await refused(seller.patch('/me', { display_name: 'Castle\u001b]0;pwned\u0007' }), 'display_name', 'an OSC sequence');
  await refused(seller.post('/webhooks', { url: 'https://hooks.example/in\u001b[2K' }), 'url', 'ESC in a webhook URL');
  await refused(seller.post('/webhooks', { url: 'https://hooks.exa\tmple/in' }), 'url', 'TAB, which the URL parser drops');
  await refused(seller.post('/webhooks', { url: 'https://hooks.example/in', description: 'a\u202eb' }), 'description', 'RLO in a webhook description');
  // What a multi-line field may hold: tabs and line breaks, nothing else of those.
  const { id } = (await seller.post('/assets', validAsset({ description: 'Line one\n\tLine two\r\n' }))).body;
  assert.ok(id);
  await refused(seller.patch(`/assets/${id}`, { description: 'Bell\u0007' }), 'description', 'BEL in a description');

  const created = await seller.post('/webhooks', { url: 'HTTPS://Hooks.Example:443/in' });
  assert.equal(created.status, 201);
  assert.equal(created.body.url, 'https://hooks.example/in', 'the URL stored is the one validated');
  assert.equal((await seller.get(`/webhooks/${created.body.id}`)).body.url, 'https://hooks.example/in');
});

test('marketkit admin queue and admin webhooks escape what a terminal could act on, in data stored before the rule too', async (t) => {
  const dir = tempDir(t);
  const storage = await sqliteStorage({ path: join(dir, 'marketkit.db') });
  const server = await startServer({ storage });
  t.after(async () => {
    await server.close();
    await storage.close();
  });
  const asset = await assetWithFile(server, server.seller.token);
  assert.equal((await as(server, server.seller.token).post(`/assets/${asset.id}/submit`)).status, 200);
  const endpoint = (await as(server, server.seller.token).post('/webhooks', { url: 'https://hooks.example/in' })).body;
  // Rows written before the rule existed (or by another program): the CLI is the last guard.
  const db = new Database(join(dir, 'marketkit.db'));
  db.prepare('UPDATE assets SET title = ? WHERE id = ?').run(forged, asset.id);
  db.prepare('UPDATE webhook_endpoints SET url = ? WHERE id = ?').run('https://hooks.example/\u001b[1A\u202eni', endpoint.id);
  db.close();

  const admin = async (...args: string[]) => {
    const run = await runCli(['admin', ...args, '--data-dir', dir]);
    assert.equal(run.code, 0, `admin ${args.join(' ')}: ${run.stderr}`);
    assert.ok(!actedOn.test(run.stdout), `admin ${args.join(' ')} printed a character a terminal acts on: ${JSON.stringify(run.stdout)}`);
    return run.stdout;
  };
  const queue = await admin('queue');
  assert.equal(queue.trimEnd().split('\n').length, 2, 'one header line and one listing line: no forged row');
  assert.ok(queue.includes('Legit\\u001b[2K\\u000d  00000000'), queue);
  const username = (await as(server, server.seller.token).get('/me')).body.username;
  const hooks = await admin('webhooks', username);
  assert.ok(hooks.includes('https://hooks.example/\\u001b[1A\\u202eni'), hooks);
  // --json stays JSON, and holds the same text.
  const json = JSON.parse(await admin('queue', '--json'));
  assert.equal(json.items[0].title, forged);
  assert.equal(JSON.parse(await admin('webhooks', username, '--json')).endpoints[0].url, 'https://hooks.example/\u001b[1A\u202eni');
});
