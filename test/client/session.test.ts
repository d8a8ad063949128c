import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient, exchangedSession, MarketKitError } from '../../client/index.js';
import { startServer } from '../fixtures/server.js';
import { startFaultProxy } from './fault-proxy.js';

test('exchangedSession trades the developer token for a session JWT, reuses it, and renews it before it expires', async () => {
  const server = await startServer();
  const proxy = await startFaultProxy(server.url, () => 'forward');
  try {
    let now = Date.now();
    const session = exchangedSession({ baseUrl: proxy.url, developerToken: server.seller.token, now: () => now, renewBeforeMs: 5 * 60_000 });
    const client = createClient({ baseUrl: proxy.url, token: session });
    await client.getProfile();
    await client.listAssets();
    const exchanges = () => proxy.log.filter((entry) => entry === 'POST /api/v1/auth/session').length;
    assert.equal(exchanges(), 1, 'one exchange serves many calls');
    assert.equal(session.expiresAt(), now + 3600_000);
    now += 54 * 60_000;
    await client.getProfile();
    assert.equal(exchanges(), 1, '6 minutes before expiry the session is still used');
    now += 2 * 60_000;
    await client.getProfile();
    assert.equal(exchanges(), 2, 'inside the last 5 minutes a new one is fetched first');
  } finally {
    await proxy.close();
    await server.close();
  }
});

test('a session the server considers expired is renewed on its 401 and the call goes through', async () => {
  const server = await startServer();
  try {
    const session = exchangedSession({ baseUrl: server.url, developerToken: server.seller.token });
    const client = createClient({ baseUrl: server.url, token: session });
    const first = await session.token();
    await client.getProfile();
    server.clock.advance(2 * 3600_000);
    assert.equal((await client.getProfile()).id, server.seller.id);
    assert.notEqual(await session.token(), first, 'a new session');
  } finally {
    await server.close();
  }
});

test('once the developer token is revoked, the next call fails with a message that names the token and says what to do', async () => {
  const server = await startServer();
  try {
    const session = exchangedSession({ baseUrl: server.url, developerToken: server.seller.token, tokenName: 'MARKETKIT_API_TOKEN' });
    const client = createClient({ baseUrl: server.url, token: session });
    await client.getProfile();
    const revoked = await createClient({ baseUrl: server.url, token: server.seller.token }).revokeToken(server.seller.tokenId);
    assert.equal(revoked.id, server.seller.tokenId);
    const error = await client.getProfile().then(() => assert.fail('succeeded'), (error: unknown) => error as MarketKitError);
    assert.ok(error instanceof MarketKitError);
    assert.equal(error.status, 401);
    assert.equal(error.code, 'UNAUTHORIZED');
    assert.match(error.message, /MARKETKIT_API_TOKEN/);
    assert.match(error.message, /revoked/);
  } finally {
    await server.close();
  }
});
