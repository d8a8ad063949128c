import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { memoryBlobs } from '../../adapters/memory/index.js';
import { sqliteStorage } from '../../adapters/sqlite/index.js';
import { createMarketplace } from '../../core/marketplace.js';
import type { MarketplaceEvent } from '../../core/ports/events.js';
import { as, assetWithFile, startServer } from '../fixtures/server.js';

test('two servers on one SQLite file releasing at once release each due listing exactly once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-release-'));
  const path = join(dir, 'marketkit.db');
  const [one, two] = await Promise.all([sqliteStorage({ path }), sqliteStorage({ path })]);
  t.after(async () => {
    await one.close();
    await two.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const events: MarketplaceEvent[] = [];
  const server = await startServer({ storage: one, events: { emit: (e) => events.push(e) } });
  t.after(() => server.close());
  const peer = createMarketplace({ storage: two, blobs: memoryBlobs(), clock: server.clock, events: { emit: (e) => events.push(e) } });
  const at = new Date(server.clock.now() + 60_000).toISOString();
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const { id } = await assetWithFile(server, server.seller.token, { scheduled_publish_at: at });
    assert.equal((await as(server, server.seller.token).post(`/assets/${id}/submit`)).body.status, 'scheduled');
    ids.push(id);
  }
  server.clock.advance(60_000);
  const runs = await Promise.all([server.marketplace.moderation.releaseDue(), peer.moderation.releaseDue(), server.marketplace.moderation.releaseDue(), peer.moderation.releaseDue()]);
  assert.deepEqual(runs.flat().map((a) => a.id).sort(), [...ids].sort(), 'each released by exactly one run');
  assert.deepEqual(events.filter((e) => e.type === 'asset.released').map((e) => e.asset_id).sort(), [...ids].sort());
  for (const id of ids) assert.equal((await as(server, server.seller.token).get(`/assets/${id}`)).body.status, 'pending');
});
