/**
 * Group commit on SQLite (adapters/sqlite/group-commit.ts) never acknowledges a write that a crash
 * then loses: `marketkit serve` under creates from many clients at once (so that creates share
 * commits) is killed with SIGKILL mid-load, restarted on the same data directory, and every create
 * it answered 201 is there, with its listing as answered.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startCliServer, tempDir } from '../fixtures/cli.js';
import { as } from '../fixtures/server.js';

test('SQLite group commit: after SIGKILL mid-load and a restart, every create answered 201 is stored', async (t) => {
  const dir = tempDir(t);
  const first = await startCliServer(['--data-dir', dir]);
  t.after(() => first.stop('SIGKILL'));
  const token = first.info.dev_seller.token!;
  const acknowledged: { id: string; slug: string }[] = [];
  let refused = 0;
  let running = true;
  const client = async (n: number) => {
    for (let i = 0; running; i++) {
      const slug = `crash-${n}-${i}`;
      try {
        const response = await fetch(`${first.info.url}/api/v1/assets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: 'Crash Pack', slug }),
        });
        const body = (await response.json()) as { id: string };
        if (response.status === 201) acknowledged.push({ id: body.id, slug });
      } catch {
        // Cut off by the kill: never answered, so never acknowledged.
        refused++;
        return;
      }
    }
  };
  const clients = Array.from({ length: 16 }, (_, n) => client(n));
  // Until a few hundred creates were answered (or 4 s), then killed with requests in flight.
  const started = Date.now();
  while (acknowledged.length < 300 && Date.now() - started < 4000) await new Promise((resolve) => setTimeout(resolve, 20));
  await first.stop('SIGKILL');
  running = false;
  await Promise.all(clients);
  assert.ok(acknowledged.length > 0, 'creates were answered before the kill');

  const second = await startCliServer(['--data-dir', dir]);
  t.after(() => second.stop('SIGKILL'));
  const seller = as(second.info, token);
  const missing: string[] = [];
  for (const { id, slug } of acknowledged) {
    const found = await seller.get(`/assets/${id}`);
    if (found.status !== 200 || found.body.slug !== slug) missing.push(`${slug} (${found.status})`);
  }
  assert.deepEqual(missing, [], `of ${acknowledged.length} creates answered 201 (${refused} cut off by the kill)`);
  const total = (await seller.get('/assets?limit=1')).body.pagination.total as number;
  assert.ok(total >= acknowledged.length, `${total} listings stored, ${acknowledged.length} acknowledged`);
});
