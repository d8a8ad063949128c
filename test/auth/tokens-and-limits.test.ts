import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import type { Scope } from '../../core/index.js';
import { as, call, startServer } from '../fixtures/server.js';

/** Section 4 of the spec: the scope each endpoint needs, written out here on its own. */
const endpointScopes: [method: string, path: string, scope: Scope, body?: unknown][] = [
  ['GET', '/me', 'profile:read'],
  ['PATCH', '/me', 'profile:write', { bio: 'x' }],
  ['GET', '/assets', 'assets:read'],
  ['POST', '/assets', 'assets:write', { title: 'Matrix', slug: 'matrix' }],
  ['POST', '/assets/batch', 'assets:write', { assets: [{ title: 'Matrix', slug: 'matrix-b' }] }],
  ['GET', '/assets/00000000-0000-4000-8000-000000000000', 'assets:read'],
  ['PATCH', '/assets/00000000-0000-4000-8000-000000000000', 'assets:write', { title: 'Other' }],
  ['DELETE', '/assets/00000000-0000-4000-8000-000000000000', 'assets:write'],
  ['POST', '/assets/00000000-0000-4000-8000-000000000000/upload-url', 'assets:write', { filename: 'a.zip' }],
  ['POST', '/assets/00000000-0000-4000-8000-000000000000/confirm-file', 'assets:write', { storage_path: 'x', file_size: 1 }],
  ['POST', '/assets/00000000-0000-4000-8000-000000000000/images/upload-url', 'assets:write', { filename: 'a.png' }],
  ['POST', '/assets/00000000-0000-4000-8000-000000000000/confirm-image', 'assets:write', { public_url: 'x' }],
  ['POST', '/assets/00000000-0000-4000-8000-000000000000/submit', 'assets:write'],
  ['GET', '/tokens', 'tokens:read'],
  ['DELETE', '/tokens?id=00000000-0000-4000-8000-000000000000', 'tokens:revoke'],
];
const allScopes: Scope[] = ['profile:read', 'profile:write', 'assets:read', 'assets:write', 'tokens:read', 'tokens:revoke'];

test('every scope against every endpoint: 403 exactly where the token lacks the endpoint’s scope', async () => {
  const server = await startServer();
  try {
    for (const held of allScopes) {
      const account = await server.account({}, [held]);
      for (const [method, path, needed, body] of endpointScopes) {
        const res = await call(server, method, path, { token: account.token, ...(body ? { body: { ...(body as object), ...(path === '/assets' ? { slug: `m-${held.replace(':', '-')}` } : {}) } } : {}) });
        if (held === needed) {
          assert.notEqual(res.status, 403, `${held} on ${method} ${path}: ${JSON.stringify(res.body)}`);
          assert.ok(res.status < 500);
        } else {
          assert.deepEqual([res.status, res.body.code], [403, 'FORBIDDEN'], `${held} on ${method} ${path}`);
          assert.match(res.body.error, new RegExp(needed));
        }
      }
    }
  } finally {
    await server.close();
  }
});

describe('developer tokens', () => {
  test('a token with a valid prefix and a bad checksum is refused without a storage look-up', async () => {
    const storage = memoryStorage();
    let lookups = 0;
    const counted = { ...storage, findTokenByHash: (hash: string) => { lookups++; return storage.findTokenByHash(hash); } };
    const server = await startServer({ storage: counted, blobs: memoryBlobs() });
    try {
      lookups = 0;
      const typo = server.seller.token.slice(0, 10) + (server.seller.token[10] === 'a' ? 'b' : 'a') + server.seller.token.slice(11);
      assert.equal((await as(server, typo).get('/me')).status, 401);
      assert.equal(lookups, 0, 'no look-up for a token whose checksum fails');
      assert.equal((await as(server, server.seller.token).get('/me')).status, 200);
      assert.equal(lookups, 1, 'one look-up, by hash, for a well-formed token');
    } finally {
      await server.close();
    }
  });

  test('the token format: smcp_, 32+ base62 characters and a checksum; only its hash is stored', async () => {
    const server = await startServer();
    try {
      assert.match(server.seller.token, /^smcp_[0-9A-Za-z]{38}$/);
      const stored = await server.marketplace.ports.storage.getToken(server.seller.tokenId);
      assert.ok(stored);
      assert.match(stored.hash, /^[0-9a-f]{64}$/);
      assert.ok(!JSON.stringify(stored).includes(server.seller.token.slice(12)), 'the secret part is nowhere in the record');
    } finally {
      await server.close();
    }
  });
});

describe('rate limits', () => {
  test('under 200 concurrent requests from one caller, 2xx never exceeds the limit; 429s carry Retry-After; another caller is unaffected', async () => {
    const server = await startServer({ rateLimits: { read: { limit: 50, windowSeconds: 60 }, write: { limit: 10, windowSeconds: 60 }, upload: { limit: 5, windowSeconds: 60 } } });
    try {
      const results = await Promise.all(Array.from({ length: 200 }, () => as(server, server.seller.token).get('/me')));
      const ok = results.filter((r) => r.status === 200);
      const limited = results.filter((r) => r.status === 429);
      assert.equal(ok.length, 50);
      assert.equal(limited.length, 150);
      for (const res of limited) {
        assert.equal(res.body.code, 'RATE_LIMITED');
        assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
        assert.equal(res.headers.get('ratelimit-remaining'), '0');
      }
      assert.equal((await as(server, server.other.token).get('/me')).status, 200, 'another caller has its own budget');
      assert.equal((await as(server, server.seller.token).post('/assets', { title: 'Still', slug: 'still-writes' })).status, 201, 'writes are a class of their own');
      assert.equal((await call(server, 'GET', '/health')).status, 200, 'health is not counted');
      assert.equal((await call(server, 'GET', '/openapi.json')).status, 200, 'the document is not counted');
      server.clock.advance(60_000);
      assert.equal((await as(server, server.seller.token).get('/me')).status, 200, 'a new window');
    } finally {
      await server.close();
    }
  });
});

test('the SQLite rate limiter shares one budget between connections (processes) on one file', async () => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { sqliteRateLimiter } = await import('../../adapters/sqlite/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-rate-'));
  const limits = { read: { limit: 30, windowSeconds: 60 }, write: { limit: 5, windowSeconds: 60 }, upload: { limit: 5, windowSeconds: 60 } };
  const first = await sqliteRateLimiter({ path: join(dir, 'limits.db'), limits });
  const second = await sqliteRateLimiter({ path: join(dir, 'limits.db'), limits });
  try {
    const now = Date.parse('2026-01-15T12:00:10.000Z');
    const decisions = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? first : second).take('token:a', 'read', now)));
    assert.equal(decisions.filter((d) => d.allowed).length, 30);
    // Sliding: the 30 units drain at one per 2 s, so one more in 2 s and the whole budget in 60 s.
    assert.ok(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.resetSeconds === 60 && d.retryAfterSeconds === 2));
    assert.equal((await first.take('token:b', 'read', now)).allowed, true, 'another caller');
    assert.equal((await second.take('token:a', 'read', now + 60_000)).allowed, true, 'the next window');
  } finally {
    first.close();
    second.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('on SQLite, the database file holds the hash of a token and never the token', async () => {
  const { mkdtempSync, readFileSync, readdirSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { sqliteStorage } = await import('../../adapters/sqlite/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-hash-'));
  const storage = await sqliteStorage({ path: join(dir, 'marketkit.db') });
  const server = await startServer({ storage, blobs: memoryBlobs() });
  try {
    assert.equal((await as(server, server.seller.token).get('/me')).status, 200);
    const stored = await storage.getToken(server.seller.tokenId);
    // Every file SQLite wrote (the database, its WAL) is searched, as an attacker with the disk would.
    const bytes = readdirSync(dir).map((name) => readFileSync(join(dir, name)).toString('latin1')).join('');
    assert.ok(bytes.includes(stored!.hash), 'the hash is there, so the search reads the right files');
    assert.ok(!bytes.includes(server.seller.token), 'the token is not');
    assert.ok(!bytes.includes(server.seller.token.slice(12)), 'nor its secret part');
  } finally {
    await server.close();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
