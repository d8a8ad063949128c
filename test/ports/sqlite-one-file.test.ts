/**
 * The SQLite storage, its studio, upload states and the rate limiter on one file in one process
 * (the first two as `marketkit serve` opens them; the upload states as docs/uploads.md shows them,
 * on a connection of their own; the limiter as docs/auth.md shows it):
 * the SQL core's transactions are async, so a transaction of one may be open while the other
 * writes. Every write of both, interleaved, must finish at once: none waits out the busy timeout
 * for the write lock the other holds (it would block the event loop that would release it) or
 * runs inside the other's transaction.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sqliteRateLimiter, sqliteStorage, sqliteStudio, sqliteUploadStates } from '../../adapters/sqlite/index.js';
import { accountRecord, assetRecord, outboxEvent } from '../../conformance/ports/sample-records.js';

test('interleaved listing changes (with events), studio writes, upload-state appends and rate-limit takes on one file all commit, none near the busy timeout', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-one-file-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'marketkit.db');
  // A short busy timeout: a write that waited for the other connection's lock would fail, not just be slow.
  const storage = await sqliteStorage({ path, busyTimeoutMs: 200 });
  const studio = await sqliteStudio({ path, busyTimeoutMs: 200 });
  const uploadStates = await sqliteUploadStates({ path, busyTimeoutMs: 200 });
  const limiter = await sqliteRateLimiter({ path });
  t.after(async () => {
    await storage.close();
    await studio.close();
    uploadStates.close();
    limiter.close();
  });
  const owner = accountRecord();
  await storage.insertAccount(owner);
  const assets = Array.from({ length: 20 }, (_, i) => assetRecord(owner.id, { slug: `one-file-${i}` }));
  const at = new Date(Date.UTC(2026, 0, 1)).toISOString();
  const projects = Array.from({ length: 20 }, () => {
    const id = crypto.randomUUID();
    return { id, kind: 'project' as const, owner_id: owner.id, project_id: id, parent_id: owner.id, position: null, data: { name: 'p' }, created_at: at, updated_at: at, revision: 1, keys: [] };
  });
  const started = performance.now();
  await Promise.all(
    assets.flatMap((asset, i) => [
      (async () => {
        assert.equal((await storage.createAsset(asset, [outboxEvent(owner.id, asset.id, 'asset.created')])).outcome, 'created');
        assert.equal((await storage.updateAsset(asset.id, asset.revision, { title: 'Changed', updated_at: at }, [outboxEvent(owner.id, asset.id)])).outcome, 'updated');
      })(),
      studio.insert([projects[i]!]),
      (async () => {
        const state = { storage_path: `one-file/${i}`, length: 10, offset: 0, hash_state: null, sha256: null, store_upload_id: null, parts: [], store_key: null, expires_at: at, updated_at: at };
        assert.ok(await uploadStates.create(state));
        assert.ok(await uploadStates.lease(state.storage_path, 'holder', 0, 1000));
        assert.ok(await uploadStates.advance(state.storage_path, 0, { ...state, offset: 10, hash_state: 'aGFzaA==' }));
      })(),
      limiter.take(owner.id, 'write', Date.now()),
    ]),
  );
  assert.ok(performance.now() - started < 3_000, 'no write waited for another connection (the limiter would wait 5 s)');
  assert.equal((await storage.listAssets({ ownerId: owner.id, limit: 100, offset: 0 })).total, 20);
  for (const project of projects) assert.equal((await studio.get(project.id))?.id, project.id);
  for (let i = 0; i < 20; i++) assert.equal((await storage.uploadStates.get(`one-file/${i}`))?.offset, 10, 'the storage reads the upload states written beside it');
});

test('close() right after a group commit waits for its WAL sync: the creates it held are answered created and are stored', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-close-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'marketkit.db');
  const storage = await sqliteStorage({ path });
  const seller = accountRecord();
  await storage.insertAccount(seller);
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  const assets = Array.from({ length: 6 }, () => assetRecord(seller.id));
  const create = (asset: (typeof assets)[number]) => storage.createAsset(asset, [outboxEvent(seller.id, asset.id, 'asset.created')]);
  // Two groups in two turns: the first's WAL sync is out on the thread pool when the second
  // commits, so the second's sync waits to begin after it; close() comes before either is done.
  const creates = assets.slice(0, 3).map(create);
  await nextTurn();
  creates.push(...assets.slice(3).map(create));
  await nextTurn();
  await storage.close();
  assert.deepEqual((await Promise.all(creates)).map((result) => result.outcome), Array(6).fill('created'));
  const reopened = await sqliteStorage({ path });
  t.after(() => reopened.close());
  for (const asset of assets) assert.equal((await reopened.getAsset(asset.id))?.id, asset.id);
});
