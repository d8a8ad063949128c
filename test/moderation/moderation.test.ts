import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assetStatuses, type AssetStatus } from '../../core/domain/asset-states.js';
import { isApiError } from '../../core/errors.js';
import type { MarketplaceEvent } from '../../core/ports/events.js';
import { as, assetWithFile, forceStatus, startServer, type TestServer } from '../fixtures/server.js';

const hour = 3_600_000;

/** The moderation rules as the contract states them, written out here rather than read from the table. */
const expected: Record<string, Partial<Record<AssetStatus, AssetStatus>>> = {
  approve: { pending: 'published' },
  reject: { pending: 'rejected' },
  requestChanges: { pending: 'changes_requested' },
  archive: { published: 'archived' },
};

async function refusal(promise: Promise<unknown>): Promise<{ code: string; status: number }> {
  try {
    await promise;
  } catch (error) {
    if (isApiError(error)) return { code: error.code, status: error.status };
    throw error;
  }
  assert.fail('expected a refusal');
}

async function statusOf(server: TestServer, id: string): Promise<AssetStatus> {
  const res = await as(server, server.seller.token).get(`/assets/${id}`);
  assert.equal(res.status, 200);
  return res.body.status;
}

describe('moderation', () => {
  let server: TestServer;
  const events: MarketplaceEvent[] = [];
  before(async () => {
    server = await startServer({ events: { emit: (event) => events.push(event) } });
  });
  after(() => server.close());

  for (const [action, allowed] of Object.entries(expected)) {
    for (const from of assetStatuses) {
      const next = allowed[from];
      test(`${action} from ${from} ${next ? `gives ${next}` : 'is 409 INVALID_STATUS and changes nothing'}`, async () => {
        const { id } = await assetWithFile(server, server.seller.token);
        await forceStatus(server, id, from);
        const m = server.marketplace.moderation;
        const run = () =>
          action === 'reject' ? m.reject(id, 'Not a fit.') : action === 'requestChanges' ? m.requestChanges(id, 'Add a preview.') : m[action as 'approve' | 'archive'](id);
        if (next) {
          assert.equal((await run()).status, next);
          assert.equal(await statusOf(server, id), next);
        } else {
          assert.deepEqual(await refusal(run()), { code: 'INVALID_STATUS', status: 409 });
          assert.equal(await statusOf(server, id), from);
        }
      });
    }
  }

  test('release moves only a due scheduled listing, scheduled -> pending; every other status stays', async () => {
    const at = new Date(server.clock.now() + hour).toISOString();
    const byStatus = new Map<AssetStatus, string>();
    for (const status of assetStatuses) {
      const { id } = await assetWithFile(server, server.seller.token, { scheduled_publish_at: at });
      await forceStatus(server, id, status);
      byStatus.set(status, id);
    }
    server.clock.advance(2 * hour);
    const released = await server.marketplace.moderation.releaseDue();
    assert.deepEqual(released.map((a) => a.id), [byStatus.get('scheduled')]);
    for (const [status, id] of byStatus) assert.equal(await statusOf(server, id), status === 'scheduled' ? 'pending' : status);
  });

  test('a missing listing is 404 NOT_FOUND, and reject and requestChanges need a reason', async () => {
    assert.equal((await refusal(server.marketplace.moderation.approve(crypto.randomUUID()))).code, 'NOT_FOUND');
    const { id } = await assetWithFile(server, server.seller.token);
    await as(server, server.seller.token).post(`/assets/${id}/submit`);
    assert.equal((await refusal(server.marketplace.moderation.reject(id, '  '))).code, 'INVALID_INPUT');
    assert.equal((await refusal(server.marketplace.moderation.requestChanges(id, undefined as never))).code, 'INVALID_INPUT');
    assert.equal(await statusOf(server, id), 'pending');
  });

  test('a listing published through approve refuses a new file with 409 LISTING_IS_LIVE', async () => {
    const { id } = await assetWithFile(server, server.seller.token);
    assert.equal((await as(server, server.seller.token).post(`/assets/${id}/submit`)).body.status, 'pending');
    await server.marketplace.moderation.approve(id);
    const res = await as(server, server.seller.token).post(`/assets/${id}/upload-url`, { filename: 'v2.zip' });
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'LISTING_IS_LIVE');
  });

  test('without payouts a paid listing cannot be submitted, and a published free one cannot become paid', async () => {
    const account = await server.account({ payouts_connected: false });
    const client = as(server, account.token);
    const paid = await assetWithFile(server, account.token, { pricing_type: 'fixed', price: 5 });
    const submitted = await client.post(`/assets/${paid.id}/submit`);
    assert.equal(submitted.status, 409);
    assert.equal(submitted.body.code, 'PAYOUTS_REQUIRED');
    const free = await assetWithFile(server, account.token);
    assert.equal((await client.post(`/assets/${free.id}/submit`)).status, 200);
    await server.marketplace.moderation.approve(free.id);
    const patched = await client.patch(`/assets/${free.id}`, { pricing_type: 'fixed', price: 3 });
    assert.equal(patched.status, 409);
    assert.equal(patched.body.code, 'PAYOUTS_REQUIRED');
    assert.equal((await client.get(`/assets/${free.id}`)).body.pricing_type, 'free');
  });

  test('a future scheduled_publish_at gives scheduled; once due, releaseDue makes it pending, exactly once when two run at once', async () => {
    const at = new Date(server.clock.now() + hour).toISOString();
    const { id } = await assetWithFile(server, server.seller.token, { scheduled_publish_at: at });
    const submitted = await as(server, server.seller.token).post(`/assets/${id}/submit`);
    assert.equal(submitted.body.status, 'scheduled');
    assert.deepEqual(await server.marketplace.moderation.releaseDue(), [], 'nothing is due before the time');
    assert.equal(await statusOf(server, id), 'scheduled');
    server.clock.advance(hour);
    const before = events.filter((e) => e.type === 'asset.released' && e.asset_id === id).length;
    const [a, b] = await Promise.all([server.marketplace.moderation.releaseDue(), server.marketplace.moderation.releaseDue()]);
    assert.equal([...a, ...b].filter((asset) => asset.id === id).length, 1);
    assert.equal(events.filter((e) => e.type === 'asset.released' && e.asset_id === id).length - before, 1);
    assert.equal(await statusOf(server, id), 'pending');
    assert.deepEqual(await server.marketplace.moderation.releaseDue(), [], 'a second run finds nothing');
  });

  test('the seller sees the review: the reason of a request for changes or a rejection, none for an approval, and every decision before the last', async () => {
    const client = as(server, server.seller.token);
    const { id } = await assetWithFile(server, server.seller.token);
    assert.equal((await client.get(`/assets/${id}`)).body.review, null);
    await client.post(`/assets/${id}/submit`);
    await server.marketplace.moderation.requestChanges(id, 'Add a preview image.');
    const changes = (await client.get(`/assets/${id}`)).body;
    assert.equal(changes.status, 'changes_requested');
    const first = { status: 'changes_requested', reason: 'Add a preview image.', reviewed_at: new Date(server.clock.now()).toISOString() };
    assert.deepEqual(changes.review, { ...first, earlier: [] });
    await client.post(`/assets/${id}/submit`);
    await server.marketplace.moderation.reject(id, 'Contains third-party assets.');
    assert.deepEqual((await client.get(`/assets/${id}`)).body.review.reason, 'Contains third-party assets.');
    await client.post(`/assets/${id}/submit`);
    await server.marketplace.moderation.approve(id);
    const approved = (await client.get(`/assets/${id}`)).body;
    assert.equal(approved.status, 'published');
    assert.deepEqual({ status: approved.review.status, reason: approved.review.reason }, { status: 'published', reason: null });
    // The history, oldest first, each decision with its reason, in the listing's review.
    assert.deepEqual(
      approved.review.earlier.map((decision: { status: string; reason: string | null }) => [decision.status, decision.reason]),
      [['changes_requested', 'Add a preview image.'], ['rejected', 'Contains third-party assets.']],
    );
    assert.deepEqual(approved.review.earlier[0], first);
  });

  test('the review history keeps the last 20 decisions before the last one', async () => {
    const client = as(server, server.seller.token);
    const { id } = await assetWithFile(server, server.seller.token);
    for (let round = 1; round <= 23; round++) {
      assert.equal((await client.post(`/assets/${id}/submit`)).status, 200);
      await server.marketplace.moderation.requestChanges(id, `Round ${round}`);
    }
    const review = (await client.get(`/assets/${id}`)).body.review;
    assert.equal(review.reason, 'Round 23');
    assert.deepEqual(review.earlier.map((decision: { reason: string }) => decision.reason), Array.from({ length: 20 }, (_, i) => `Round ${i + 3}`));
  });

  test('every state change emits its event, once', async () => {
    const { id } = await assetWithFile(server, server.seller.token);
    const client = as(server, server.seller.token);
    const start = events.length;
    const mine = () => events.slice(start).filter((e) => e.asset_id === id).map((e) => `${e.type} ${e.from}->${e.to}`);
    await client.post(`/assets/${id}/submit`);
    await server.marketplace.moderation.requestChanges(id, 'Add a license file.');
    await client.post(`/assets/${id}/submit`);
    await server.marketplace.moderation.reject(id, 'Still no license.');
    await client.post(`/assets/${id}/submit`);
    await server.marketplace.moderation.approve(id);
    await server.marketplace.moderation.archive(id);
    await refusal(server.marketplace.moderation.archive(id));
    assert.deepEqual(mine(), [
      'asset.submitted draft->pending',
      'asset.changes_requested pending->changes_requested',
      'asset.submitted changes_requested->pending',
      'asset.rejected pending->rejected',
      'asset.submitted rejected->pending',
      'asset.published pending->published',
      'asset.archived published->archived',
    ]);
    const at = new Date(server.clock.now() + hour).toISOString();
    const scheduled = await assetWithFile(server, server.seller.token, { scheduled_publish_at: at });
    const mark = events.length;
    await client.post(`/assets/${scheduled.id}/submit`);
    server.clock.advance(hour);
    await server.marketplace.moderation.releaseDue();
    assert.deepEqual(
      events.slice(mark).filter((e) => e.asset_id === scheduled.id).map((e) => `${e.type} ${e.from}->${e.to}`),
      ['asset.scheduled draft->scheduled', 'asset.released scheduled->pending'],
    );
  });
});

describe('the onSubmit hook', () => {
  test('auto-approve publishes a submitted listing at once, through approve and its event', async (t) => {
    const events: MarketplaceEvent[] = [];
    const server = await startServer({ moderation: { onSubmit: 'auto-approve' }, events: { emit: (event) => events.push(event) } });
    t.after(() => server.close());
    const { id } = await assetWithFile(server, server.seller.token);
    const mark = events.length;
    const res = await as(server, server.seller.token).post(`/assets/${id}/submit`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'published');
    assert.equal(await statusOf(server, id), 'published');
    assert.deepEqual(events.slice(mark).filter((e) => e.asset_id === id).map((e) => e.type), ['asset.submitted', 'asset.published']);
    // A scheduled listing waits for its time, then is published when released.
    const at = new Date(server.clock.now() + hour).toISOString();
    const later = await assetWithFile(server, server.seller.token, { scheduled_publish_at: at });
    assert.equal((await as(server, server.seller.token).post(`/assets/${later.id}/submit`)).body.status, 'scheduled');
    server.clock.advance(hour);
    await server.marketplace.moderation.releaseDue();
    assert.equal(await statusOf(server, later.id), 'published');
  });

  test('by default a submitted listing waits in pending', async (t) => {
    const server = await startServer();
    t.after(() => server.close());
    const { id } = await assetWithFile(server, server.seller.token);
    assert.equal((await as(server, server.seller.token).post(`/assets/${id}/submit`)).body.status, 'pending');
    assert.equal(await statusOf(server, id), 'pending');
  });

  test('an unknown onSubmit value is refused with a message that says what to use', async () => {
    await assert.rejects(startServer({ moderation: { onSubmit: 'publish' as never } }), /moderation\.onSubmit must be "queue", "auto-approve" or a function/);
  });
});
