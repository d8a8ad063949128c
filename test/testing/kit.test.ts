import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestMarketplace, type Seed, type TestAccount, type TestMarketplace } from '../../testing/index.js';
import { draftWithFile, send } from './kit-client.js';

const seed: Seed = {
  accounts: [{ username: 'alice', payouts_connected: true }, { username: 'bob', seller_status: 'none' }],
  categories: [{ slug: 'textures', name: 'Textures' }],
  assets: [
    { owner: 'alice', title: 'Seeded draft', slug: 'seeded-draft' },
    { owner: 'alice', title: 'Seeded live', slug: 'seeded-live', status: 'published', file: true, images: [{ type: 'webp' }, { type: 'png' }], category: 'textures', tags: ['wood'] },
    { owner: 'alice', title: 'Seeded refusal', slug: 'seeded-rejected', status: 'rejected', file: { filename: 'a.zip', content: 'PK\u0003\u0004 abc' }, review_reason: 'Blurry images.' },
  ],
};

describe('state', () => {
  test('a listing created through fetch is there on the next read, and in the list', async () => {
    const mk = createTestMarketplace();
    const seller = await mk.seller();
    const created = await send(mk, 'POST', '/assets', { as: seller, body: { title: 'Brick pack', slug: 'brick-pack' } });
    assert.equal(created.status, 201);
    const read = await send(mk, 'GET', `/assets/${created.body.id}`, { as: seller });
    assert.equal(read.status, 200);
    assert.equal(read.body.title, 'Brick pack');
    const list = await send(mk, 'GET', '/assets', { as: seller });
    assert.deepEqual(list.body.data.map((a: { slug: string }) => a.slug), ['brick-pack']);
    const again = await send(mk, 'POST', '/assets', { as: seller, body: { title: 'Brick pack', slug: 'brick-pack' } });
    assert.equal(again.body.code, 'CONFLICT', 'the slug is still taken: the state persists');
  });

  test('a seed gives listings in any status, with their file, images, category and review', async () => {
    const mk = createTestMarketplace({ seed });
    const alice = await mk.account('alice');
    const list = await send(mk, 'GET', '/assets', { as: alice });
    assert.deepEqual(list.body.data.map((a: { slug: string; status: string }) => [a.slug, a.status]).sort(), [
      ['seeded-draft', 'draft'],
      ['seeded-live', 'published'],
      ['seeded-rejected', 'rejected'],
    ]);
    const live = list.body.data.find((a: { slug: string }) => a.slug === 'seeded-live');
    const detail = (await send(mk, 'GET', `/assets/${live.id}`, { as: alice })).body;
    assert.equal(detail.category.slug, 'textures');
    assert.equal(detail.images.length, 2);
    assert.equal(detail.images[0].is_primary, true);
    assert.equal(detail.file.content_type, 'application/zip');
    assert.deepEqual(detail.tags, ['wood']);
    // The seeded listing obeys the real rules: a live listing refuses a new file.
    const refused = await send(mk, 'POST', `/assets/${live.id}/upload-url`, { as: alice, body: { filename: 'v2.zip' } });
    assert.equal(refused.body.code, 'LISTING_IS_LIVE');
    const rejected = list.body.data.find((a: { slug: string }) => a.slug === 'seeded-rejected');
    const resubmitted = await send(mk, 'POST', `/assets/${rejected.id}/submit`, { as: alice });
    assert.equal(resubmitted.body.status, 'pending', 'the seeded file counts: a rejected listing can be resubmitted');
    assert.equal((await send(mk, 'GET', '/me', { as: await mk.account('bob') })).body.seller_status, 'none');
  });

  test('a seed with a mistake throws at once, naming it', () => {
    assert.throws(() => createTestMarketplace({ seed: { assets: [{ owner: 'nobody', title: 'x', slug: 'x' }] } }), /assets\[0\]\.owner nobody/);
    assert.throws(() => createTestMarketplace({ seed: { assets: [{ owner: 'seller', title: 'Live', slug: 'live', status: 'published' }] } }), /needs a file/);
    assert.throws(() => createTestMarketplace({ seed: { accounts: [{ username: 'seller' }] } }), /username seller is taken/);
    assert.throws(() => createTestMarketplace({ seed: { accounts: [{ username: 'ann', payout_connected: true } as never] } }), /accounts\.0\.payout_connected/);
  });

  test('a seeded published listing can carry its open version: its owner sees pending_version, moderators find it in their queue and approve it', async () => {
    const mk = createTestMarketplace({
      seed: {
        assets: [
          {
            owner: 'seller', title: 'Live pack', slug: 'live-pack', status: 'published', file: true,
            version: { version: '1.1.0', release_notes: 'New gate.', changes: { title: 'Live pack II' }, file: { filename: 'pack-2.zip', content: 'PK\u0003\u0004 two' } },
          },
          { owner: 'seller', title: 'Other pack', slug: 'other-pack', status: 'published', file: true, version: { version: '2.0.0', status: 'changes_requested', file: true, review_reason: 'Add the changelog.' } },
        ],
      },
    });
    const seller = await mk.seller();
    const listings = (await send(mk, 'GET', '/assets', { as: seller })).body.data as { id: string; slug: string }[];
    const live = listings.find((a) => a.slug === 'live-pack')!;
    const detail = (await send(mk, 'GET', `/assets/${live.id}`, { as: seller })).body;
    assert.deepEqual([detail.status, detail.title], ['published', 'Live pack'], 'the live listing is unchanged');
    assert.deepEqual([detail.pending_version.version, detail.pending_version.status], ['1.1.0', 'pending']);
    const other = listings.find((a) => a.slug === 'other-pack')!;
    const changes = (await send(mk, 'GET', `/assets/${other.id}`, { as: seller })).body.pending_version;
    assert.deepEqual([changes.status, changes.review.reason], ['changes_requested', 'Add the changelog.']);
    const queue = await mk.marketplace.moderation.versions.queue(10);
    assert.deepEqual(queue.map((v) => v.version), ['1.1.0'], 'the pending one waits in the moderators’ queue');
    await mk.moderate.versions.approve(queue[0]!.id);
    const after = (await send(mk, 'GET', `/assets/${live.id}`, { as: seller })).body;
    assert.deepEqual([after.version, after.title, after.file.file_size, after.pending_version], ['1.1.0', 'Live pack II', 'PK\u0003\u0004 two'.length, null]);
    // The seed is checked as the real flow would: versions of published listings only, with a file past draft.
    assert.throws(() => createTestMarketplace({ seed: { assets: [{ owner: 'seller', title: 'Draft', slug: 'draft', version: { version: '1.1.0', status: 'draft' } }] } }), /assets\[0\] has a version but is draft/);
    assert.throws(() => createTestMarketplace({ seed: { assets: [{ owner: 'seller', title: 'Live', slug: 'live', status: 'published', file: true, version: { version: '1.1.0' } }] } }), /assets\[0\]\.version is pending, which needs a file/);
    const lower = createTestMarketplace({ seed: { assets: [{ owner: 'seller', title: 'Live', slug: 'live', status: 'published', file: true, version: { version: '0.9.0', status: 'draft' } }] } });
    await assert.rejects(lower.ready, /assets\[0\]\.version.*higher/);
  });

  test('a seeded field the create body does not know is named', async () => {
    const mk = createTestMarketplace({ seed: { assets: [{ owner: 'seller', title: 'Typo', slug: 'typo', titel: 'x' }] } });
    await assert.rejects(mk.ready, /assets\[0\].*titel/);
  });
});

describe('fixtures', () => {
  const mk = createTestMarketplace();
  const create = async (who: TestAccount) => send(mk, 'POST', '/assets', { as: who, body: { title: 'Anything', slug: `any-${Math.random().toString(36).slice(2)}` } });

  test('each fixture is the account its name says, refused as the contract says', async () => {
    assert.equal((await create(await mk.seller())).status, 201);
    assert.equal((await create(await mk.secondSeller())).status, 201);
    assert.equal((await create(await mk.nonSeller())).body.code, 'NOT_A_SELLER');
    assert.equal((await create(await mk.pendingSeller())).body.code, 'NOT_A_SELLER');
    assert.equal((await create(await mk.restricted())).body.code, 'ACCOUNT_RESTRICTED');
    const suspended = await create(await mk.suspended());
    assert.deepEqual([suspended.status, suspended.body.code], [403, 'FORBIDDEN']);
    const noPayouts = await mk.sellerWithoutPayouts();
    const paid = await draftWithFile(mk, noPayouts, { title: 'Paid pack', slug: 'paid-pack', pricing_type: 'fixed', price: 5 });
    assert.equal((await send(mk, 'POST', `/assets/${paid}/submit`, { as: noPayouts })).body.code, 'PAYOUTS_REQUIRED');
    const noScheduling = await mk.sellerWithoutScheduling();
    assert.equal((await create(noScheduling)).status, 201);
    const scheduled = await send(mk, 'POST', '/assets', { as: noScheduling, body: { title: 'Later', slug: 'later-one', scheduled_publish_at: '2030-01-01T00:00:00.000Z' } });
    assert.deepEqual([scheduled.status, scheduled.body.code], [409, 'PRECONDITION_FAILED']);
  });

  test('scopes chosen by the test: a token without assets:write gets 403 FORBIDDEN', async () => {
    const reader = await mk.seller({ scopes: ['assets:read'] });
    const full = await mk.seller();
    assert.equal(reader.id, full.id, 'the same account');
    assert.notEqual(reader.token, full.token);
    assert.equal((await send(mk, 'GET', '/assets', { as: reader })).status, 200);
    assert.equal((await create(reader)).body.code, 'FORBIDDEN');
  });

  test('a second seller cannot see the first one’s listing (404)', async () => {
    const made = await create(await mk.seller());
    assert.equal((await send(mk, 'GET', `/assets/${made.body.id}`, { as: await mk.secondSeller() })).status, 404);
  });
});

/** One "test suite" of a client: what it observes, without ids (which are fresh on every run). */
async function scenario(mk: TestMarketplace): Promise<unknown[]> {
  const seen: unknown[] = [];
  const alice = await mk.account('alice');
  const before = await send(mk, 'GET', '/assets', { as: alice });
  seen.push(before.body.pagination.total);
  const id = await draftWithFile(mk, alice, { title: 'Scenario pack', slug: 'scenario-pack' });
  seen.push((await send(mk, 'POST', `/assets/${id}/submit`, { as: alice })).body.status);
  await mk.clock.advance(60_000);
  const approved = await mk.moderate.approve(id);
  seen.push(approved.status, approved.updated_at);
  const after = await send(mk, 'GET', '/assets', { as: alice });
  seen.push(after.body.data.map((a: { slug: string; status: string; created_at: string }) => [a.slug, a.status, a.created_at]));
  seen.push(mk.requests.list().map((r) => [r.method, r.operation, r.status]));
  seen.push(mk.events.list().map((e) => [e.type, e.from, e.to, e.at]));
  return seen;
}

describe('reset', () => {
  test('the same suite run twice in one process, with reset() between, sees the same results', async () => {
    const mk = createTestMarketplace({ seed, now: '2026-03-01T10:00:00.000Z' });
    const first = await scenario(mk);
    await mk.reset();
    const second = await scenario(mk);
    assert.deepEqual(second, first);
    assert.equal(first[0], 3, 'it started from the seed');
  });

  test('reset() puts back the seed: created listings, uploads, clock, faults, requests and events are gone; seed tokens still work', async () => {
    const mk = createTestMarketplace({ seed, now: '2026-03-01T10:00:00.000Z' });
    const alice = await mk.account('alice');
    const start = mk.clock.now();
    await draftWithFile(mk, alice, { title: 'Temporary', slug: 'temporary' });
    await mk.clock.advance(3_600_000);
    mk.faults.rateLimit('GET /me', { times: 5 });
    const reader = await mk.account('alice', { scopes: ['assets:read'] });
    await mk.reset();
    assert.equal(mk.clock.now(), start);
    assert.deepEqual(mk.faults.list(), []);
    assert.equal(mk.requests.count(), 0);
    assert.deepEqual(mk.events.list(), []);
    assert.equal((await send(mk, 'GET', '/me', { as: alice })).status, 200, 'no fault left, and the seed token works');
    assert.equal((await send(mk, 'GET', '/me', { as: reader })).status, 401, 'a token made after the seed is gone');
    const list = await send(mk, 'GET', '/assets', { as: alice });
    assert.deepEqual(list.body.data.map((a: { slug: string }) => a.slug).sort(), ['seeded-draft', 'seeded-live', 'seeded-rejected']);
    assert.equal((await send(mk, 'POST', '/assets', { as: alice, body: { title: 'Temporary', slug: 'temporary' } })).status, 201, 'its slug is free again');
  });

  test('rate-limit windows start over on reset()', async () => {
    const mk = createTestMarketplace({ rateLimits: { read: { limit: 2, windowSeconds: 60 } } });
    const seller = await mk.seller();
    for (const expected of [200, 200, 429]) assert.equal((await send(mk, 'GET', '/me', { as: seller })).status, expected);
    await mk.reset();
    assert.equal((await send(mk, 'GET', '/me', { as: seller })).status, 200);
  });

  test('reset() takes well under a millisecond for 10 accounts and 100 assets', async () => {
    const mk = createTestMarketplace({
      seed: {
        accounts: Array.from({ length: 10 }, (_, i) => ({ username: `user-${i}` })),
        assets: Array.from({ length: 100 }, (_, i) => ({ owner: `user-${i % 10}`, title: `Asset ${i}`, slug: `asset-${i}`, ...(i % 2 ? { status: 'published' as const, file: true as const, images: 1 } : {}) })),
      },
    });
    await mk.ready;
    const rounds = 2000;
    const start = performance.now();
    for (let i = 0; i < rounds; i++) await mk.reset();
    const perReset = (performance.now() - start) / rounds;
    assert.ok(perReset < 0.5, `reset() took ${perReset.toFixed(4)} ms`);
  });

  test('snapshot() and restore() go back to any point, as often as wanted', async () => {
    const mk = createTestMarketplace();
    const seller = await mk.seller();
    const id = await draftWithFile(mk, seller, { title: 'Kept', slug: 'kept' });
    const snap = await mk.snapshot();
    await send(mk, 'PATCH', `/assets/${id}`, { as: seller, body: { title: 'Changed' } });
    await send(mk, 'POST', '/assets', { as: seller, body: { title: 'Later', slug: 'later' } });
    for (let round = 0; round < 2; round++) {
      await mk.restore(snap);
      const list = await send(mk, 'GET', '/assets', { as: seller });
      assert.deepEqual(list.body.data.map((a: { title: string }) => a.title), ['Kept']);
      assert.equal((await send(mk, 'GET', `/assets/${id}`, { as: seller })).body.file.file_size, 15, 'the uploaded file came back with it');
      await send(mk, 'PATCH', `/assets/${id}`, { as: seller, body: { title: 'Changed again' } });
    }
    await assert.rejects(mk.restore({} as never), /snapshot\(\)/);
  });
});

describe('moderation and events', () => {
  test('moderate approves, rejects, requests changes and archives, and events.untilStatus waits for publication', async () => {
    const mk = createTestMarketplace();
    const seller = await mk.seller();
    const ids = await Promise.all(['one', 'two', 'three'].map((n) => draftWithFile(mk, seller, { title: `Pack ${n}`, slug: `pack-${n}` })));
    for (const id of ids) await send(mk, 'POST', `/assets/${id}/submit`, { as: seller });
    const published = mk.events.untilStatus(ids[0]!, 'published');
    setTimeout(() => void mk.moderate.approve(ids[0]!), 5);
    await published;
    assert.equal((await mk.moderate.reject(ids[1]!, 'Missing license')).status, 'rejected');
    assert.equal((await mk.moderate.requestChanges(ids[2]!, 'Add a preview')).status, 'changes_requested');
    assert.equal((await mk.moderate.archive(ids[0]!)).status, 'archived');
    const detail = await send(mk, 'GET', `/assets/${ids[1]}`, { as: seller });
    assert.equal(detail.body.status, 'rejected');
    await assert.rejects(mk.moderate.approve(ids[1]!), { code: 'INVALID_STATUS' });
    assert.deepEqual(
      mk.events.list({ asset_id: ids[0]! }).map((e) => e.type),
      ['asset.created', 'asset.file_confirmed', 'asset.submitted', 'asset.published', 'asset.archived'],
    );
    await assert.rejects(mk.events.waitFor({ asset_id: ids[2]!, to: 'published' }, { timeoutMs: 20 }), /no event matching/);
  });

  test("moderation.onSubmit 'auto-approve' publishes on submit", async () => {
    const mk = createTestMarketplace({ marketplace: { moderation: { onSubmit: 'auto-approve' } } });
    const seller = await mk.seller();
    const id = await draftWithFile(mk, seller, { title: 'Auto', slug: 'auto' });
    await send(mk, 'POST', `/assets/${id}/submit`, { as: seller });
    await mk.events.untilStatus(id, 'published', { timeoutMs: 100 });
  });
});

describe('request log', () => {
  test('records method, path, operation, body, status, code and response; never the whole token', async () => {
    const mk = createTestMarketplace();
    const seller = await mk.seller();
    await send(mk, 'POST', '/assets', { as: seller, body: { title: 'x', slug: 'short-title' } });
    const entry = mk.requests.last()!;
    assert.equal(entry.method, 'POST');
    assert.equal(entry.path, '/api/v1/assets');
    assert.equal(entry.operation, 'createAsset');
    assert.deepEqual(entry.body, { title: 'x', slug: 'short-title' });
    assert.equal(entry.status, 400);
    assert.equal(entry.code, 'INVALID_INPUT');
    assert.match((entry.response as { error: string }).error, /title/);
    assert.equal(entry.authorization, 'Bearer smcp_');
    assert.ok(!JSON.stringify(mk.requests.list()).includes(seller.token));
    assert.equal(mk.requests.count({ operation: 'createAsset', code: 'INVALID_INPUT' }), 1);
    assert.equal(mk.requests.count({ path: /^\/api\/v1\/me/ }), 0);
  });
});
