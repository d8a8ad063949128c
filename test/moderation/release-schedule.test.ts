import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { releaseOnInterval } from '../../core/moderation/release-schedule.js';
import { as, assetWithFile, startServer } from '../fixtures/server.js';

test('releaseOnInterval releases a due scheduled listing on its own, and nothing after stop()', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const client = as(server, server.seller.token);
  const at = new Date(server.clock.now() + 60_000).toISOString();
  const first = await assetWithFile(server, server.seller.token, { scheduled_publish_at: at });
  await client.post(`/assets/${first.id}/submit`);
  const errors: unknown[] = [];
  let runs = 0;
  const counted = { releaseDue: () => (runs++, server.marketplace.moderation.releaseDue()) };
  const schedule = releaseOnInterval(counted, 10, (error) => errors.push(error));
  await sleep(50);
  assert.ok(runs >= 2, 'it runs on every tick, a no-op while nothing is due');
  assert.equal((await client.get(`/assets/${first.id}`)).body.status, 'scheduled');
  server.clock.advance(60_000);
  await sleep(50);
  assert.equal((await client.get(`/assets/${first.id}`)).body.status, 'pending');
  schedule.stop();
  const after = runs;
  await sleep(50);
  assert.equal(runs, after, 'stopped: no more runs');
  assert.deepEqual(errors, []);
});

test('a failing run goes to onError and the next tick runs again', async () => {
  const errors: unknown[] = [];
  let runs = 0;
  const schedule = releaseOnInterval({ releaseDue: async () => { runs++; throw new Error('store down'); } }, 10, (error) => errors.push(error));
  await sleep(60);
  schedule.stop();
  assert.ok(runs >= 2);
  assert.equal(errors.length, runs);
});
