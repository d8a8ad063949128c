/**
 * Limits per client address (docs/auth.md, "Rate limits"; docs/security.md, "Rate limits"): failed
 * authentication on REST, MCP and the admin surface, and unauthenticated MCP calls. Over HTTP for
 * the address the test client has; through the marketplace's handler with a `clientAddress` of
 * our choosing for "another address".
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatToken, hasValidChecksum } from '../../core/domain/tokens.js';
import type { CoreRequest } from '../../core/pipeline/request.js';
import type { Marketplace, MarketplaceOptions } from '../../core/marketplace.js';
import type { RateLimit } from '../../core/rate-limits.js';
import { callTool, rpc } from '../fixtures/mcp.js';
import { as, startServer, type TestServer } from '../fixtures/server.js';

const serviceKey = 'test-service-key-0123456789abcdef0123456789';
const room: RateLimit = { limit: 1_000_000, windowSeconds: 60 };

/** A server whose per-address limits are the given ones (the caller classes have room). */
function serverWith(limits: Partial<Record<'failedAuth' | 'mcpUnauthenticated' | 'admin', RateLimit>>, options: Partial<MarketplaceOptions> = {}) {
  return startServer({ serviceKey, rateLimits: { read: room, write: room, upload: room, failedAuth: room, mcpUnauthenticated: room, admin: room, ...limits }, ...options });
}

/** A well-formed developer token (its checksum holds, so it is looked up) that no one was given. */
function unknownToken(_server: TestServer, n: number): string {
  return formatToken(Uint8Array.from({ length: 48 }, (_, i) => (i < 4 ? (n >> (8 * i)) & 0xff : i) % 248));
}

/** One request through the marketplace's handler, from `clientAddress`. */
async function from(marketplace: Marketplace, clientAddress: string | undefined, method: string, target: string, options: { token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const bytes = options.body === undefined ? null : new TextEncoder().encode(JSON.stringify(options.body));
  if (bytes) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(bytes.byteLength) });
  const request: CoreRequest = {
    method,
    target,
    header: (name) => headers[name],
    body: bytes ? (async function* () { yield bytes; })() : null,
    origin: 'http://127.0.0.1',
    ...(clientAddress === undefined ? {} : { clientAddress }),
  };
  const response = await marketplace.handle(request);
  return { status: response.status, headers: response.headers, body: typeof response.body === 'string' && response.body ? JSON.parse(response.body) : null };
}

function assertLimited(res: { status: number; headers: Headers | Record<string, string>; body: any }, what: string) {
  const header = (name: string) => (res.headers instanceof Headers ? res.headers.get(name) : res.headers[name]);
  assert.equal(res.status, 429, `${what}: ${JSON.stringify(res.body)}`);
  assert.match(header('retry-after') ?? '', /^[1-9]\d*$/, `${what}: Retry-After`);
  assert.equal(header('ratelimit-remaining'), '0', `${what}: RateLimit-Remaining`);
}

describe('failed authentication is limited per client address', () => {
  test('REST: guessing tokens gets 429 after the limit, even for the right token from that address; the right token works below the limit, elsewhere and once the window slides', async () => {
    const server = await serverWith({ failedAuth: { limit: 5, windowSeconds: 60 } });
    try {
      const me = () => as(server, server.seller.token).get('/me');
      // Guesses of every kind: unknown well-formed tokens, a bad checksum, garbage, a bad JWT.
      assert.ok(hasValidChecksum(unknownToken(server, 1)));
      const guesses = [unknownToken(server, 1), unknownToken(server, 2), 'smcp_typo', 'not-a-token', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl'];
      for (const [i, guess] of guesses.slice(0, 4).entries()) {
        assert.equal((await as(server, guess).get('/me')).status, 401, `guess ${i}`);
        // A correct credential from the same address still works, and is not charged.
        assert.equal((await me()).status, 200, `the right token after ${i + 1} failure(s)`);
      }
      // No credential at all is no guess: not charged.
      for (let i = 0; i < 10; i++) assert.equal((await as(server, null).get('/me')).status, 401);
      assert.equal((await as(server, guesses[4]!).get('/me')).status, 401, 'the fifth failure is still a 401');
      const sixth = await as(server, unknownToken(server, 3)).get('/me');
      assertLimited(sixth, 'the sixth guess');
      assert.equal(sixth.body.code, 'RATE_LIMITED');
      assert.equal(sixth.headers.get('ratelimit-limit'), '5');
      // Past the budget, the credential is not even looked at: the right one is refused too.
      assertLimited(await me(), 'the right token from the spent address');
      // From another address, the right token works, and a guess is that address's own failure.
      assert.equal((await from(server.marketplace, '203.0.113.7', 'GET', '/api/v1/me', { token: server.seller.token })).status, 200);
      assert.equal((await from(server.marketplace, '203.0.113.7', 'GET', '/api/v1/me', { token: unknownToken(server, 4) })).status, 401);
      // The window slides: one failure drains every 12 s (5 a minute); Retry-After says so.
      assert.equal(sixth.headers.get('retry-after'), '12');
      server.clock.advance(12_000);
      assert.equal((await me()).status, 200, 'the right token once a failure has drained');
      assert.equal((await as(server, unknownToken(server, 5)).get('/me')).status, 401, 'one more guess');
      assertLimited(await as(server, unknownToken(server, 6)).get('/me'), 'and no more');
      server.clock.advance(60_000);
      assert.equal((await me()).status, 200);
    } finally {
      await server.close();
    }
  });

  test('200 concurrent guesses from one address: exactly the limit is checked (401), the rest are 429', async () => {
    const server = await serverWith({ failedAuth: { limit: 10, windowSeconds: 60 } });
    try {
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => as(server, unknownToken(server, 100 + i)).get('/me')));
      assert.equal(answers.filter((a) => a.status === 401).length, 10);
      assert.equal(answers.filter((a) => a.status === 429).length, 190);
    } finally {
      await server.close();
    }
  });

  test('a right token among concurrent guesses waits for its turn but is served while the budget lasts', async () => {
    const server = await serverWith({ failedAuth: { limit: 10, windowSeconds: 60 } });
    try {
      const calls = Array.from({ length: 9 }, (_, i) => as(server, unknownToken(server, i)).get('/me'));
      // Not a known token yet (storage changed since it was last read), so it is checked like the guesses.
      await server.marketplace.admin.createAccount({ username: 'bystander' });
      calls.push(...Array.from({ length: 20 }, () => as(server, server.seller.token).get('/me')));
      const answers = await Promise.all(calls);
      assert.deepEqual(answers.slice(0, 9).map((a) => a.status), Array(9).fill(401));
      assert.deepEqual(answers.slice(9).map((a) => a.status), Array(20).fill(200));
    } finally {
      await server.close();
    }
  });

  test('revoked and expired tokens count as failures; a suspended account (403) does not', async () => {
    const server = await serverWith({ failedAuth: { limit: 2, windowSeconds: 60 } });
    try {
      const suspended = await server.account({ is_suspended: true });
      for (let i = 0; i < 5; i++) assert.equal((await as(server, suspended.token).get('/me')).status, 403);
      const revoked = await server.account();
      await as(server, revoked.token).delete(`/tokens?id=${revoked.tokenId}`);
      const account = await server.account();
      const expiring = await server.marketplace.admin.createToken({ accountId: account.id, name: 'short', expiresAt: new Date(server.clock.now() + 1000) });
      server.clock.advance(2000);
      assert.equal((await as(server, revoked.token).get('/me')).status, 401);
      assert.equal((await as(server, expiring.token).get('/me')).status, 401);
      assertLimited(await as(server, server.seller.token).get('/me'), 'after two failures');
    } finally {
      await server.close();
    }
  });

  test('MCP tools/call: bad bearers draw on the same budget as REST; past it the answer is HTTP 429 with a JSON-RPC error', async () => {
    const server = await serverWith({ failedAuth: { limit: 3, windowSeconds: 60 } });
    try {
      assert.equal((await callTool(server, unknownToken(server, 1), 'get_my_profile')).status, 401);
      assert.equal((await as(server, unknownToken(server, 2)).get('/me')).status, 401);
      assert.equal((await callTool(server, 'eyJhbGciOiJIUzI1NiJ9.e30.c2ln', 'get_my_profile')).status, 401);
      const limited = await callTool(server, unknownToken(server, 3), 'get_my_profile');
      assertLimited(limited, 'tools/call past the budget');
      assert.equal(limited.body.error.data.code, 'RATE_LIMITED');
      assert.equal(limited.body.error.code, -31429);
      const right = await callTool(server, server.seller.token, 'get_my_profile');
      assertLimited(right, 'the right token on MCP from the spent address');
      server.clock.advance(20_000);
      const after = await callTool(server, server.seller.token, 'get_my_profile');
      assert.equal(after.status, 200);
      assert.equal(after.body.result.isError, undefined);
    } finally {
      await server.close();
    }
  });

  test('admin surface: wrong service keys draw on the address’s budget; past it even the right key is 429; the right key works from another address', async () => {
    const server = await serverWith({ failedAuth: { limit: 3, windowSeconds: 60 } });
    try {
      const adminCall = async (key: string | null) => {
        const res = await fetch(`${server.url}/api/admin/moderation/queue`, key === null ? {} : { headers: { authorization: `Bearer ${key}` } });
        return { status: res.status, headers: res.headers, body: await res.json() };
      };
      assert.equal((await adminCall(serviceKey)).status, 200);
      for (let i = 0; i < 5; i++) assert.equal((await adminCall(null)).status, 401, 'no key is not a guess');
      for (let i = 0; i < 3; i++) assert.equal((await adminCall(`${serviceKey.slice(0, -1)}${i}`)).status, 401);
      const limited = await adminCall('another-wrong-key-0123456789abcdef0123');
      assertLimited(limited, 'a wrong key past the budget');
      assert.equal(limited.body.code, 'RATE_LIMITED');
      assertLimited(await adminCall(serviceKey), 'the right key from the spent address');
      assert.equal((await from(server.marketplace, '198.51.100.2', 'GET', '/api/admin/moderation/queue', { token: serviceKey })).status, 200);
      // Guessing developer tokens and service keys is one budget.
      assertLimited(await as(server, server.seller.token).get('/me'), 'REST from the same address');
    } finally {
      await server.close();
    }
  });
});

describe('the admin surface and unauthenticated MCP calls have limits of their own', () => {
  test('admin calls: past the admin limit, 429 with Retry-After; answers carry RateLimit-*', async () => {
    const server = await serverWith({ admin: { limit: 3, windowSeconds: 60 } });
    try {
      const queue = () => from(server.marketplace, '198.51.100.3', 'GET', '/api/admin/moderation/queue', { token: serviceKey });
      const first = await queue();
      assert.equal(first.status, 200);
      assert.deepEqual([first.headers['ratelimit-limit'], first.headers['ratelimit-remaining']], ['3', '2']);
      assert.equal((await queue()).status, 200);
      assert.equal((await queue()).status, 200);
      const limited = await queue();
      assertLimited(limited, 'the fourth admin call');
      assert.equal(limited.headers['retry-after'], '20');
      // Per service key: another address shares the budget.
      assert.equal((await from(server.marketplace, '198.51.100.4', 'GET', '/api/admin/moderation/queue', { token: serviceKey })).status, 429);
      server.clock.advance(20_000);
      assert.equal((await queue()).status, 200);
    } finally {
      await server.close();
    }
  });

  test('unauthenticated MCP calls (initialize, tools/list, ping, server/discover) are limited per address; tool calls with a token are not counted there', async () => {
    const server = await serverWith({ mcpUnauthenticated: { limit: 4, windowSeconds: 60 } });
    try {
      const init = await rpc(server, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
      assert.equal(init.status, 200);
      assert.equal(init.headers.get('ratelimit-limit'), '4');
      assert.equal((await rpc(server, 'tools/list')).status, 200);
      assert.equal((await rpc(server, 'ping')).status, 200);
      for (let i = 0; i < 10; i++) assert.equal((await callTool(server, server.seller.token, 'health_check')).status, 200, 'tool calls with a token');
      assert.equal((await rpc(server, 'ping')).status, 200);
      const limited = await rpc(server, 'tools/list');
      assertLimited(limited, 'the fifth unauthenticated call');
      assert.equal(limited.body.error.data.code, 'RATE_LIMITED');
      assert.equal(limited.headers.get('retry-after'), '15');
      assertLimited(await callTool(server, undefined, 'health_check'), 'a tool call without a token is an unauthenticated call');
      assert.equal((await callTool(server, server.seller.token, 'health_check')).status, 200, 'a tool call with a token still works');
      const elsewhere = await from(server.marketplace, '192.0.2.9', 'POST', '/api/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
      assert.equal(elsewhere.status, 200, JSON.stringify(elsewhere.body));
      server.clock.advance(15_000);
      assert.equal((await rpc(server, 'ping')).status, 200);
    } finally {
      await server.close();
    }
  });
});

test('the defaults: 20 failed authentications, 120 unauthenticated MCP calls and 600 admin calls a minute', async () => {
  const { defaultRateLimits } = await import('../../core/rate-limits.js');
  assert.deepEqual(
    [defaultRateLimits.failedAuth, defaultRateLimits.mcpUnauthenticated, defaultRateLimits.admin],
    [{ limit: 20, windowSeconds: 60 }, { limit: 120, windowSeconds: 60 }, { limit: 600, windowSeconds: 60 }],
  );
});
