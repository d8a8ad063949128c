/**
 * The scheduled-release job on several instances: two marketplaces on one SQLite file (two
 * instances of one deployment) run marketplace.maintenance.releaseDue() on a timer; one at a time
 * holds the storage lease 'release-due' and releases, the other stands by and takes over once the
 * lease runs out; each listing is released exactly once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test, type TestContext } from 'node:test';
import { memoryBlobs } from '../../adapters/memory/index.js';
import { sqliteStorage } from '../../adapters/sqlite/index.js';
import { createMarketplace } from '../../core/marketplace.js';
import { releaseLeaseMs } from '../../core/moderation/moderation.js';
import { releaseOnInterval } from '../../core/moderation/release-schedule.js';
import type { MarketplaceEvent } from '../../core/ports/events.js';
import { as, assetWithFile, startServer } from '../fixtures/server.js';

/** Two instances on one SQLite file, sharing a clock; `due` scheduled listings, due once the clock moves a minute. */
async function twoInstances(t: TestContext, due: number) {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-release-lease-'));
  const path = join(dir, 'marketkit.db');
  const [one, two] = await Promise.all([sqliteStorage({ path }), sqliteStorage({ path })]);
  t.after(async () => {
    await one.close();
    await two.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const events = { one: [] as MarketplaceEvent[], two: [] as MarketplaceEvent[] };
  const server = await startServer({ storage: one, events: { emit: (e) => events.one.push(e) } });
  t.after(() => server.close());
  const peer = createMarketplace({ storage: two, blobs: memoryBlobs(), clock: server.clock, events: { emit: (e) => events.two.push(e) } });
  const at = new Date(server.clock.now() + 60_000).toISOString();
  const ids: string[] = [];
  for (let i = 0; i < due; i++) {
    const { id } = await assetWithFile(server, server.seller.token, { scheduled_publish_at: at });
    assert.equal((await as(server, server.seller.token).post(`/assets/${id}/submit`)).body.status, 'scheduled');
    ids.push(id);
  }
  const released = (list: MarketplaceEvent[]) => list.filter((e) => e.type === 'asset.released').map((e) => e.asset_id);
  return { server, peer, ids, released: () => ({ one: released(events.one), two: released(events.two) }) };
}

test('maintenance.releaseDue(): one instance at a time holds the lease and releases; the other runs nothing until the lease runs out', async (t) => {
  const { server, peer, ids, released } = await twoInstances(t, 5);
  server.clock.advance(60_000);
  const [a, b] = await Promise.all([server.marketplace.maintenance.releaseDue(), peer.maintenance.releaseDue()]);
  assert.equal([a.ran, b.ran].filter(Boolean).length, 1, 'exactly one held the lease');
  const winner = a.ran ? a : b;
  assert.deepEqual(winner.released.map((r) => r.id).sort(), [...ids].sort());
  assert.deepEqual((a.ran ? b : a).released, []);
  const events = released();
  assert.deepEqual([...events.one, ...events.two].sort(), [...ids].sort(), 'each released exactly once');

  // The holder keeps it (each run renews it); the other is refused while it lasts.
  const [holder, standby] = a.ran ? [server.marketplace, peer] : [peer, server.marketplace];
  assert.equal((await standby.maintenance.releaseDue()).ran, false);
  assert.equal((await holder.maintenance.releaseDue()).ran, true);
  server.clock.advance(releaseLeaseMs - 1);
  assert.equal((await standby.maintenance.releaseDue()).ran, false, 'renewed by the last run');
  // The holder stops (dies): once its lease has run out, the other takes over.
  server.clock.advance(1);
  assert.equal((await standby.maintenance.releaseDue()).ran, true);
  assert.equal((await holder.maintenance.releaseDue()).ran, false);
  // moderation.releaseDue() (an operator's manual run) needs no lease: nothing is left to release.
  assert.deepEqual(await holder.moderation.releaseDue(), []);
});

test('releaseOnInterval(marketplace.maintenance) on both instances: every due listing released exactly once, all by the instance holding the lease', async (t) => {
  const { server, peer, ids, released } = await twoInstances(t, 6);
  const errors: unknown[] = [];
  let runs = 0;
  const counted = (maintenance: typeof peer.maintenance) => ({ releaseDue: () => (runs++, maintenance.releaseDue()) });
  const schedules = [releaseOnInterval(counted(server.marketplace.maintenance), 5, (e) => errors.push(e)), releaseOnInterval(counted(peer.maintenance), 5, (e) => errors.push(e))];
  t.after(() => schedules.forEach((s) => s.stop()));
  await sleep(40);
  server.clock.advance(60_000);
  for (let waited = 0; released().one.length + released().two.length < ids.length && waited < 5000; waited += 20) await sleep(20);
  await sleep(40);
  schedules.forEach((s) => s.stop());
  assert.ok(runs >= 4, `both timers ran (${runs} runs)`);
  assert.deepEqual(errors, []);
  const { one, two } = released();
  assert.deepEqual([...one, ...two].sort(), [...ids].sort(), 'each released exactly once');
  assert.ok(one.length === 0 || two.length === 0, `one instance released them all (${one.length} and ${two.length})`);
  for (const id of ids) assert.equal((await as(server, server.seller.token).get(`/assets/${id}`)).body.status, 'pending');
});
