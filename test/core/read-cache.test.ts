/**
 * The read cache (core/read-cache.ts) keeps callers and read results until storage changes. What a
 * user relies on: every write is seen by the very next request, whoever made it (this marketplace,
 * the admin API, another connection, another process), and the checks that depend on time or on
 * the caller run on every request all the same.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { manualClock, memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import { sqliteStorage } from '../../adapters/sqlite/index.js';
import { createMarketplace, type Marketplace, type StoragePort } from '../../core/index.js';
import { createTestMarketplace } from '../../testing/index.js';

const origin = 'http://marketkit.test';

function call(mk: { fetch(request: Request): Promise<Response> }, token: string, method: string, path: string, body?: unknown) {
  return mk.fetch(
    new Request(`${origin}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }),
  );
}

async function json(response: Promise<Response>) {
  const answered = await response;
  return { status: answered.status, body: (await answered.json()) as Record<string, unknown> };
}

async function sellerOf(marketplace: Marketplace) {
  const account = await marketplace.admin.createAccount({ username: `seller-${crypto.randomUUID().slice(0, 8)}` });
  const { token, record } = await marketplace.admin.createToken({ accountId: account.id, name: 'test' });
  return { account, token, tokenId: record.id };
}

describe('the read cache never serves what storage no longer says', () => {
  test('a change through the API is in the next read, on REST and MCP alike', async () => {
    const mk = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
    const { token } = await sellerOf(mk);
    const created = await json(call(mk, token, 'POST', '/assets', { title: 'Castle Pack', slug: 'castle-pack' }));
    const id = created.body.id as string;
    assert.equal((await json(call(mk, token, 'GET', `/assets/${id}`))).body.title, 'Castle Pack');
    assert.equal((await json(call(mk, token, 'GET', `/assets/${id}`))).body.title, 'Castle Pack');
    await json(call(mk, token, 'PATCH', `/assets/${id}`, { title: 'Keep Pack' }));
    assert.equal((await json(call(mk, token, 'GET', `/assets/${id}`))).body.title, 'Keep Pack');
    const viaMcp = await mk.fetch(
      new Request(`${origin}/api/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_asset', arguments: { asset_id: id } } }),
      }),
    );
    const answer = (await viaMcp.json()) as { result: { structuredContent: { title: string }; content: { text: string }[] } };
    assert.equal(answer.result.structuredContent.title, 'Keep Pack');
    assert.equal(JSON.parse(answer.result.content[0]!.text).title, 'Keep Pack');
    const page = await json(call(mk, token, 'GET', '/assets?limit=5'));
    assert.deepEqual((page.body.data as { title: string }[]).map((a) => a.title), ['Keep Pack']);
  });

  test('a result kept for one seller is never shown to another', async () => {
    const mk = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
    const first = await sellerOf(mk);
    const second = await sellerOf(mk);
    const id = (await json(call(mk, first.token, 'POST', '/assets', { title: 'Castle Pack', slug: 'castle-pack' }))).body.id as string;
    assert.equal((await call(mk, first.token, 'GET', `/assets/${id}`)).status, 200);
    assert.equal((await call(mk, second.token, 'GET', `/assets/${id}`)).status, 404);
    assert.equal((await json(call(mk, second.token, 'GET', '/me'))).body.id, second.account.id);
    assert.equal((await json(call(mk, first.token, 'GET', '/me'))).body.id, first.account.id);
  });

  test('a token whose scopes lack the read is refused even when the result is kept', async () => {
    const mk = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
    const { account, token } = await sellerOf(mk);
    const id = (await json(call(mk, token, 'POST', '/assets', { title: 'Castle Pack', slug: 'castle-pack' }))).body.id as string;
    assert.equal((await call(mk, token, 'GET', `/assets/${id}`)).status, 200);
    const narrow = await mk.admin.createToken({ accountId: account.id, name: 'profile only', scopes: ['profile:read'] });
    const refused = await json(call(mk, narrow.token, 'GET', `/assets/${id}`));
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'FORBIDDEN');
  });

  test('revocation, suspension and a changed profile through the admin API are seen by the next request', async () => {
    const mk = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
    const { account, token, tokenId } = await sellerOf(mk);
    const other = await mk.admin.createToken({ accountId: account.id, name: 'second' });
    assert.equal((await call(mk, token, 'GET', '/me')).status, 200);
    await mk.admin.updateAccount(account.id, { display_name: 'Renamed' });
    assert.equal((await json(call(mk, token, 'GET', '/me'))).body.display_name, 'Renamed');
    await mk.admin.updateAccount(account.id, { is_suspended: true });
    assert.equal((await call(mk, other.token, 'GET', '/me')).status, 403);
    await mk.admin.updateAccount(account.id, { is_suspended: false });
    assert.equal((await call(mk, other.token, 'GET', '/me')).status, 200);
    await mk.ports.storage.revokeToken(account.id, tokenId, new Date().toISOString());
    const revoked = await json(call(mk, token, 'GET', '/me'));
    assert.equal(revoked.status, 401);
    assert.equal(revoked.body.code, 'UNAUTHORIZED');
    assert.equal((await call(mk, other.token, 'GET', '/me')).status, 200);
  });

  test('kept results are told apart by every field of the input, and a field order does not matter', async () => {
    const mk = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
    const { token } = await sellerOf(mk);
    const titles: string[] = [];
    for (let i = 0; i < 12; i++) {
      const title = `Pack ${String(i).padStart(2, '0')}`;
      titles.push(title);
      assert.equal((await call(mk, token, 'POST', '/assets', { title, slug: `pack-${i}` })).status, 201);
    }
    const page = async (query: string) => ((await json(call(mk, token, 'GET', `/assets?${query}`))).body.data as { title: string }[]).map((a) => a.title);
    // Each asked twice, in an order where a key that ran fields together would answer one for the other.
    for (let round = 0; round < 2; round++) {
      const oneFromEleven = await page('limit=1&offset=11');
      const elevenFromOne = await page('limit=11&offset=1');
      assert.equal(oneFromEleven.length, 1);
      assert.equal(elevenFromOne.length, 11);
      assert.deepEqual(await page('offset=11&limit=1'), oneFromEleven);
      assert.deepEqual((await page('limit=12')).sort(), [...titles].sort());
      assert.deepEqual(await page('status=draft&limit=1&offset=11'), oneFromEleven);
      assert.deepEqual(await page('status=pending&limit=1&offset=11'), []);
    }
  });

  test('expiry and the last use of a token follow the clock on every request', async () => {
    const mk = createTestMarketplace({ now: '2026-03-01T12:00:00Z' });
    const seller = await mk.seller();
    const expiring = await mk.marketplace.admin.createToken({ accountId: seller.id, name: 'an hour', expiresAt: new Date('2026-03-01T13:00:00Z') });
    for (let i = 0; i < 3; i++) assert.equal((await call(mk, expiring.token, 'GET', '/me')).status, 200);
    const lastUse = async () => ((await json(call(mk, seller.token, 'GET', '/tokens'))).body.data as { id: string; last_used_at: string }[]).find((t) => t.id === expiring.record.id)!.last_used_at;
    assert.equal(await lastUse(), '2026-03-01T12:00:00.000Z');
    await mk.clock.advance(30 * 60_000);
    assert.equal((await call(mk, expiring.token, 'GET', '/me')).status, 200);
    assert.equal(await lastUse(), '2026-03-01T12:30:00.000Z');
    await mk.clock.advance(30 * 60_000);
    const expired = await json(call(mk, expiring.token, 'GET', '/me'));
    assert.equal(expired.status, 401);
    assert.match(expired.body.error as string, /expired/);
  });

  test('a storage without changeVersion is read on every request, and works the same', async () => {
    const inner = memoryStorage();
    const uncached = Object.fromEntries(
      Object.entries(inner)
        .filter(([name]) => name !== 'changeVersion' && name !== 'changeVersions')
        // Its methods bound to it; a capability that is an object of its own (versions) as it is.
        .map(([name, method]) => [name, typeof method === 'function' ? (method as (...args: unknown[]) => unknown).bind(inner) : method]),
    ) as unknown as StoragePort;
    let tokenReads = 0;
    const findTokenByHash = uncached.findTokenByHash;
    uncached.findTokenByHash = (hash) => (tokenReads++, findTokenByHash(hash));
    const mk = createMarketplace({ storage: uncached, blobs: memoryBlobs() });
    const { account, token, tokenId } = await sellerOf(mk);
    for (let i = 0; i < 3; i++) assert.equal((await call(mk, token, 'GET', '/me')).status, 200);
    assert.equal(tokenReads, 3);
    await mk.ports.storage.revokeToken(account.id, tokenId, new Date().toISOString());
    assert.equal((await call(mk, token, 'GET', '/me')).status, 401);
  });
});

/**
 * A memory store whose changeVersion answers with a promise, as a store on a server does, and does
 * not move for a token's last use (as PostgreSQL's does not). `calls` counts each method's calls.
 */
function asyncVersionStorage() {
  const inner = memoryStorage();
  const calls = new Map<string, number>();
  const unversioned = /^(get|find|list|ping|storageUse|touchToken|tryLease|changeVersion)/;
  let version = 1;
  let failing = false;
  const storage = new Proxy(inner, {
    get(target, name: string) {
      // Both versions are this one number (a wrapper that answers changeVersion answers changeVersions too).
      if (name === 'changeVersion' || name === 'changeVersions') {
        return () => (calls.set('changeVersion', (calls.get('changeVersion') ?? 0) + 1), failing ? Promise.reject(new Error('the server is away')) : Promise.resolve(version));
      }
      const method = Reflect.get(target, name) as unknown;
      if (typeof method !== 'function') return method;
      return async (...args: unknown[]) => {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        try {
          return await (method as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          if (!unversioned.test(name)) version++;
        }
      };
    },
  }) as StoragePort;
  return { storage, count: (name: string) => calls.get(name) ?? 0, fail: (on: boolean) => (failing = on) };
}

describe('a storage whose changeVersion answers with a promise', () => {
  test('is awaited: a repeated read is kept, a write is in the next read, and a version that cannot be read only costs the cache', async () => {
    const store = asyncVersionStorage();
    const mk = createMarketplace({ storage: store.storage, blobs: memoryBlobs() });
    const { account, token, tokenId } = await sellerOf(mk);
    const id = (await json(call(mk, token, 'POST', '/assets', { title: 'Castle Pack', slug: 'castle-pack' }))).body.id as string;
    for (let i = 0; i < 3; i++) assert.equal((await json(call(mk, token, 'GET', `/assets/${id}`))).body.title, 'Castle Pack');
    const reads = store.count('getAsset');
    const tokenReads = store.count('findTokenByHash');
    for (let i = 0; i < 3; i++) assert.equal((await json(call(mk, token, 'GET', `/assets/${id}`))).body.title, 'Castle Pack');
    assert.equal(store.count('getAsset'), reads, 'kept');
    assert.equal(store.count('findTokenByHash'), tokenReads, 'the caller kept');
    assert.equal((await call(mk, token, 'PATCH', `/assets/${id}`, { title: 'Keep Pack' })).status, 200);
    assert.equal((await json(call(mk, token, 'GET', `/assets/${id}`))).body.title, 'Keep Pack');
    store.fail(true);
    const before = store.count('findTokenByHash');
    for (let i = 0; i < 2; i++) assert.equal((await json(call(mk, token, 'GET', `/assets/${id}`))).body.title, 'Keep Pack');
    assert.equal(store.count('findTokenByHash'), before + 2, 'read from the store while the version cannot be read');
    store.fail(false);
    await mk.ports.storage.revokeToken(account.id, tokenId, new Date().toISOString());
    assert.equal((await call(mk, token, 'GET', `/assets/${id}`)).status, 401);
  });

  test("a token's use is recorded once a minute even when recording it moves no version", async () => {
    const store = asyncVersionStorage();
    const clock = manualClock(Date.parse('2026-03-01T12:00:00Z'));
    const mk = createMarketplace({ storage: store.storage, blobs: memoryBlobs(), clock });
    const { token } = await sellerOf(mk);
    for (let i = 0; i < 3; i++) assert.equal((await call(mk, token, 'GET', '/me')).status, 200);
    assert.equal(store.count('touchToken'), 1);
    assert.equal(store.count('findTokenByHash'), 1, 'the caller is kept from the first request on');
    clock.advance(61_000);
    for (let i = 0; i < 3; i++) assert.equal((await call(mk, token, 'GET', '/me')).status, 200);
    assert.equal(store.count('touchToken'), 2, 'touched once after the minute, not on every request');
    assert.equal(store.count('findTokenByHash'), 1);
    clock.advance(61_000);
    for (let i = 0; i < 3; i++) assert.equal((await call(mk, token, 'GET', '/me')).status, 200);
    assert.equal(store.count('touchToken'), 3);
  });
});

describe('what the read cache keeps is bounded', () => {
  /** A seller with 150 listings of about 9.6 KB of JSON each, pages of 100 (about 0.96 MB), and the pages read from storage. */
  async function pagedSeller() {
    const inner = memoryStorage();
    const reads = { pages: 0 };
    const storage: StoragePort = Object.assign(Object.create(inner) as StoragePort, {
      listAssets: (query: Parameters<StoragePort['listAssets']>[0]) => (reads.pages++, inner.listAssets(query)),
    });
    const mk = createMarketplace({ storage, blobs: memoryBlobs(), rateLimits: { read: { limit: 100_000, windowSeconds: 60 } } });
    const { token } = await sellerOf(mk);
    const description = 'stone '.repeat(1600);
    for (let i = 0; i < 150; i++) assert.equal((await call(mk, token, 'POST', '/assets', { title: `Pack ${i}`, slug: `pack-${i}`, description })).status, 201);
    const page = async (offset: number) => assert.equal((await call(mk, token, 'GET', `/assets?limit=100&offset=${offset}`)).status, 200);
    return { page, reads };
  }

  test('a repeated read is served without storage, and reads past 8 MB of kept JSON push the oldest out', async () => {
    const { page, reads } = await pagedSeller();
    await page(0);
    const first = reads.pages;
    await page(0);
    assert.equal(reads.pages, first, 'the same page again comes from the cache');
    // Nine pages pass 8 MB. Each asked twice: once the cache is full, a result is kept only when asked for again.
    for (let offset = 1; offset <= 9; offset++) for (let ask = 0; ask < 2; ask++) await page(offset);
    const before = reads.pages;
    await page(0);
    assert.equal(reads.pages, before + 1, 'the first page was pushed out and is read again');
  });

  test('once full, reads made once each (every listing in turn) do not push out what is read again', async () => {
    const { page, reads } = await pagedSeller();
    await page(0);
    // Past 8 MB with pages each asked once: the cache fills, then keeps none of the rest.
    for (let offset = 1; offset <= 20; offset++) await page(offset);
    const before = reads.pages;
    await page(0);
    assert.equal(reads.pages, before, 'the page read first is still kept');
    await page(20);
    await page(20);
    assert.equal(reads.pages, before + 1, 'a page asked for again is kept from its second ask on');
  });
});

describe('the read cache on SQLite sees writes of other connections', () => {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-read-cache-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a revocation and a changed listing written through another connection (as another process would) are seen at once', async () => {
    const path = join(dir, 'marketkit.db');
    const [mine, theirs] = [await sqliteStorage({ path }), await sqliteStorage({ path })];
    try {
      const served = createMarketplace({ storage: mine, blobs: memoryBlobs() });
      const other = createMarketplace({ storage: theirs, blobs: memoryBlobs() });
      const { account, token, tokenId } = await sellerOf(served);
      const id = (await json(call(served, token, 'POST', '/assets', { title: 'Castle Pack', slug: 'castle-pack' }))).body.id as string;
      for (let i = 0; i < 3; i++) assert.equal((await json(call(served, token, 'GET', `/assets/${id}`))).body.title, 'Castle Pack');
      assert.equal((await call(other, token, 'PATCH', `/assets/${id}`, { title: 'Keep Pack' })).status, 200);
      assert.equal((await json(call(served, token, 'GET', `/assets/${id}`))).body.title, 'Keep Pack');
      await other.ports.storage.revokeToken(account.id, tokenId, new Date().toISOString());
      assert.equal((await call(served, token, 'GET', `/assets/${id}`)).status, 401);
    } finally {
      await mine.close();
      await theirs.close();
    }
  });
});

describe("a listing's write keeps every caller; a write to tokens or accounts, by anyone, does not", () => {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-callers-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const stores: [string, () => Promise<{ mine: StoragePort; theirs: StoragePort; close(): Promise<void> }>][] = [
    ['memory', async () => {
      const store = memoryStorage();
      return { mine: store, theirs: store, close: async () => {} };
    }],
    ['SQLite, the other writer on another connection', async () => {
      const path = join(dir, `${crypto.randomUUID()}.db`);
      const [mine, theirs] = [await sqliteStorage({ path }), await sqliteStorage({ path })];
      return { mine, theirs, close: async () => (await mine.close(), await theirs.close()) };
    }],
  ];
  for (const [name, open] of stores) {
    test(name, async () => {
      const { mine, theirs, close } = await open();
      try {
        let tokenReads = 0;
        const counted: StoragePort = { ...mine, findTokenByHash: (hash) => (tokenReads++, mine.findTokenByHash(hash)) };
        const served = createMarketplace({ storage: counted, blobs: memoryBlobs() });
        const other = createMarketplace({ storage: theirs, blobs: memoryBlobs() });
        const writer = await sellerOf(served);
        const reader = await sellerOf(served);
        // Twice: the first use is recorded (on memory that is a write to tokens), the second is kept.
        for (const { token } of [writer, reader, writer, reader]) assert.equal((await call(served, token, 'GET', '/me')).status, 200);
        const known = tokenReads;
        for (let i = 0; i < 3; i++) {
          const id = (await json(call(served, writer.token, 'POST', '/assets', { title: 'Castle Pack', slug: `castle-pack-${i}` }))).body.id as string;
          assert.equal((await call(served, writer.token, 'PATCH', `/assets/${id}`, { title: 'Keep Pack' })).status, 200);
          assert.equal((await call(other, writer.token, 'PATCH', `/assets/${id}`, { title: 'Other Pack' })).status, 200);
          assert.equal((await call(served, reader.token, 'GET', '/me')).status, 200);
        }
        assert.equal(tokenReads, known, 'no token read again after listing writes, here or through the other writer');
        // A profile changed here or by the other writer is in the caller's next answer.
        await served.admin.updateAccount(reader.account.id, { display_name: 'Reader' });
        assert.equal((await json(call(served, reader.token, 'GET', '/me'))).body.display_name, 'Reader');
        await other.admin.updateAccount(reader.account.id, { display_name: 'Other' });
        assert.equal((await json(call(served, reader.token, 'GET', '/me'))).body.display_name, 'Other');
        await other.admin.updateAccount(reader.account.id, { is_suspended: true });
        assert.equal((await call(served, reader.token, 'GET', '/me')).status, 403);
        await other.admin.updateAccount(reader.account.id, { is_suspended: false });
        assert.equal((await call(served, reader.token, 'GET', '/me')).status, 200);
        await other.ports.storage.revokeToken(reader.account.id, reader.tokenId, new Date().toISOString());
        assert.equal((await call(served, reader.token, 'GET', '/me')).status, 401);
        const fresh = await other.admin.createToken({ accountId: writer.account.id, name: 'fresh' });
        assert.equal((await call(served, fresh.token, 'GET', '/me')).status, 200);
      } finally {
        await close();
      }
    });
  }
});
