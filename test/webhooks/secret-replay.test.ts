/**
 * Security finding 5 of wave 2 (docs/security.md, "Findings of the wave-2 security test"):
 * replaying POST /webhooks or rotate-secret with the same Idempotency-Key answered the signing
 * secret again for 24 hours, and the idempotency table kept it in plain text. Now a replay is the
 * first answer with `secret: null`, and the table never holds the secret.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { sqliteStorage } from '../../adapters/sqlite/index.js';
import { call, startServer } from '../fixtures/server.js';

test('a replayed create or rotate-secret answers secret null; the idempotency table holds no secret (SQLite)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-secret-replay-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'marketkit.db');
  const storage = await sqliteStorage({ path });
  const server = await startServer({ storage });
  t.after(async () => {
    await server.close();
    await storage.close();
  });
  const post = (url: string, key: string, body?: unknown) =>
    call(server, 'POST', url, { token: server.seller.token, headers: { 'idempotency-key': key }, ...(body ? { body } : {}) });

  const created = await post('/webhooks', 'create-1', { url: 'https://hooks.example/in' });
  assert.equal(created.status, 201);
  assert.match(created.body.secret, /^whsec_/);
  const replayed = await post('/webhooks', 'create-1', { url: 'https://hooks.example/in' });
  assert.equal(replayed.status, 201);
  assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
  assert.equal(replayed.body.secret, null, 'the replay does not show the secret again');
  assert.deepEqual({ ...replayed.body, secret: created.body.secret }, created.body, 'and is otherwise the first answer');

  const rotated = await post(`/webhooks/${created.body.id}/rotate-secret`, 'rotate-1');
  assert.equal(rotated.status, 200);
  assert.match(rotated.body.secret, /^whsec_/);
  const rotatedAgain = await post(`/webhooks/${created.body.id}/rotate-secret`, 'rotate-1');
  assert.equal(rotatedAgain.headers.get('idempotent-replayed'), 'true');
  assert.equal(rotatedAgain.body.secret, null);

  const db = new Database(path, { readonly: true });
  t.after(() => db.close());
  const kept = db.prepare('SELECT key, answer_body FROM idempotency_keys').all() as { key: string; answer_body: string }[];
  assert.equal(kept.length, 2);
  for (const row of kept) {
    assert.ok(!row.answer_body.includes(created.body.secret), `${row.key} keeps no secret`);
    assert.ok(!row.answer_body.includes(rotated.body.secret), `${row.key} keeps no secret`);
    assert.ok(!row.answer_body.includes('whsec_'), `${row.key} keeps no secret`);
  }
});
