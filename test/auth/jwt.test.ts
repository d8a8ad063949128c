import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { as, startServer, validAsset, type TestServer } from '../fixtures/server.js';

const hsSecret = 'a-supabase-style-shared-secret-of-forty-bytes!';
const idpIssuer = 'https://idp.example/';
const hsIssuer = 'https://supabase.example/auth/v1';

/** An identity provider on loopback: its JWKS can be rotated by the test. */
async function identityProvider() {
  let keys: { kid: string; privateKey: CryptoKey; publicJwk: JWK }[] = [];
  const rotate = async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const kid = `key-${keys.length + 1}-${Date.now()}`;
    keys = [{ kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } }];
    return keys[0]!;
  };
  let fetches = 0;
  const server: Server = createServer((req, res) => {
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: keys.map((k) => k.publicJwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  await rotate();
  return {
    url,
    rotate,
    get current() {
      return keys[0]!;
    },
    get fetches() {
      return fetches;
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

let server: TestServer;
let idp: Awaited<ReturnType<typeof identityProvider>>;
let accountId: string;

before(async () => {
  idp = await identityProvider();
  server = await startServer({
    jwtIssuers: [
      { issuer: idpIssuer, audience: 'marketplace', jwksUrl: idp.url, algorithms: ['RS256'], clockToleranceSeconds: 5, jwksCooldownSeconds: 0 },
      { issuer: hsIssuer, audience: 'authenticated', secret: hsSecret },
    ],
  });
  accountId = server.seller.id;
});
after(async () => {
  await server.close();
  await idp.close();
});

const nowSeconds = () => Math.floor(server.clock.now() / 1000);

async function rsJwt(claims: Record<string, unknown> = {}, options: { key?: CryptoKey; kid?: string; exp?: number; nbf?: number; iss?: string; aud?: string } = {}) {
  const jwt = new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? idp.current.kid })
    .setIssuer(options.iss ?? idpIssuer)
    .setAudience(options.aud ?? 'marketplace')
    .setSubject(accountId)
    .setIssuedAt(nowSeconds())
    .setExpirationTime(options.exp ?? nowSeconds() + 600);
  if (options.nbf !== undefined) jwt.setNotBefore(options.nbf);
  return jwt.sign(options.key ?? idp.current.privateKey);
}

const status = async (token: string, path = '/me') => (await as(server, token).get(path)).status;

describe('session JWTs from an identity provider', () => {
  test('a valid JWT from the JWKS works, and holds all six scopes without a scope claim', async () => {
    const jwt = await rsJwt();
    const me = await as(server, jwt).get('/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.id, accountId);
    assert.equal(await status(jwt, '/tokens'), 200, 'tokens:read comes with a session');
  });

  test('expired, not yet valid, wrong issuer, wrong audience: 401', async () => {
    assert.equal(await status(await rsJwt({}, { exp: nowSeconds() - 60 })), 401, 'expired');
    assert.equal(await status(await rsJwt({}, { nbf: nowSeconds() + 600 })), 401, 'not yet valid');
    assert.equal(await status(await rsJwt({}, { nbf: nowSeconds() + 3 })), 200, 'within the clock tolerance');
    assert.equal(await status(await rsJwt({}, { iss: 'https://evil.example/' })), 401, 'wrong issuer');
    assert.equal(await status(await rsJwt({}, { aud: 'another-app' })), 401, 'wrong audience');
  });

  test('a JWT without exp is refused', async () => {
    const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: idp.current.kid }).setIssuer(idpIssuer).setAudience('marketplace').setSubject(accountId).sign(idp.current.privateKey);
    assert.equal(await status(jwt), 401);
  });

  test('alg none is refused', async () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: idpIssuer, aud: 'marketplace', sub: accountId, exp: nowSeconds() + 600 })}.`;
    assert.equal(await status(unsigned), 401);
  });

  test('an RS256 public key used as an HS256 secret is refused', async () => {
    const publicPem = JSON.stringify(idp.current.publicJwk);
    const forged = await new SignJWT({}).setProtectedHeader({ alg: 'HS256', kid: idp.current.kid }).setIssuer(idpIssuer).setAudience('marketplace')
      .setSubject(accountId).setExpirationTime(nowSeconds() + 600).sign(new TextEncoder().encode(publicPem));
    assert.equal(await status(forged), 401);
  });

  test('a tampered payload is refused', async () => {
    const [header, , signature] = (await rsJwt()).split('.');
    const payload = Buffer.from(JSON.stringify({ iss: idpIssuer, aud: 'marketplace', sub: server.other.id, exp: nowSeconds() + 600 })).toString('base64url');
    assert.equal(await status(`${header}.${payload}.${signature}`), 401);
  });

  test('a key rotated at the JWKS server is picked up; the old key stops working', async () => {
    const old = idp.current;
    const before = await rsJwt();
    assert.equal(await status(before), 200);
    const fresh = await idp.rotate();
    assert.equal(await status(await rsJwt({}, { key: fresh.privateKey, kid: fresh.kid })), 200, 'a token signed with the new key works at once');
    assert.equal(await status(await rsJwt({}, { key: old.privateKey, kid: old.kid })), 401, 'a token signed with the retired key does not');
  });

  test('a scope claim limits the session: without assets:write it cannot create', async () => {
    const jwt = await rsJwt({ scope: 'profile:read assets:read' });
    assert.equal(await status(jwt, '/me'), 200);
    const created = await as(server, jwt).post('/assets', validAsset());
    assert.deepEqual([created.status, created.body.code], [403, 'FORBIDDEN']);
  });

  test('an HS256 secret issuer (Supabase style) works, and its secret signs nothing for the RS256 issuer', async () => {
    const secret = new TextEncoder().encode(hsSecret);
    const hs = await new SignJWT({ role: 'authenticated' }).setProtectedHeader({ alg: 'HS256' }).setIssuer(hsIssuer).setAudience('authenticated')
      .setSubject(accountId).setExpirationTime(nowSeconds() + 600).sign(secret);
    assert.equal(await status(hs), 200);
    const crossed = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer(idpIssuer).setAudience('marketplace')
      .setSubject(accountId).setExpirationTime(nowSeconds() + 600).sign(secret);
    assert.equal(await status(crossed), 401);
  });

  test('a JWT for an account that does not exist is 401; for a suspended one 403', async () => {
    const ghost = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: idp.current.kid }).setIssuer(idpIssuer).setAudience('marketplace')
      .setSubject(crypto.randomUUID()).setExpirationTime(nowSeconds() + 600).sign(idp.current.privateKey);
    assert.equal(await status(ghost), 401);
    const suspended = await server.account({ is_suspended: true });
    const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: idp.current.kid }).setIssuer(idpIssuer).setAudience('marketplace')
      .setSubject(suspended.id).setExpirationTime(nowSeconds() + 600).sign(idp.current.privateKey);
    assert.equal(await status(jwt), 403);
  });

  test('bad issuer options say what to change at start-up', async () => {
    await assert.rejects(startServer({ jwtIssuers: [{ issuer: 'x', secret: 'short' }] }), /secret must be at least 32 bytes/);
    await assert.rejects(startServer({ jwtIssuers: [{ issuer: 'x', jwksUrl: idp.url, algorithms: ['HS256'] }] }), /algorithms must match the key/);
    await assert.rejects(startServer({ jwtIssuers: [{ issuer: 'x' }] }), /exactly one of jwksUrl, publicKeys or secret/);
  });
});

describe('the developer-token exchange', () => {
  test('gives a session JWT with exactly the token’s scopes, verifiable with the served JWKS', async () => {
    const account = await server.account({}, ['profile:read', 'assets:read']);
    const res = await as(server, account.token).post('/auth/session');
    assert.equal(res.status, 200);
    assert.equal(res.body.token_type, 'Bearer');
    assert.equal(res.body.expires_in, 3600);
    assert.equal(res.body.scope, 'profile:read assets:read');
    const jwt: string = res.body.access_token;
    assert.equal(await status(jwt, '/me'), 200);
    assert.equal(await status(jwt, '/tokens'), 403, 'no wider than the token');
    assert.equal((await as(server, jwt).post('/assets', validAsset())).status, 403);
    const jwks = await (await fetch(`${server.api}/.well-known/jwks.json`)).json();
    assert.equal(jwks.keys.length, 1);
    assert.equal(jwks.keys[0].kid, JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()).kid);
    assert.ok(!('d' in jwks.keys[0]), 'no private part is served');
  });

  test('revoking the developer token stops the session at once', async () => {
    const account = await server.account();
    const jwt: string = (await as(server, account.token).post('/auth/session')).body.access_token;
    assert.equal(await status(jwt), 200);
    await as(server, account.token).delete(`/tokens?id=${account.tokenId}`);
    assert.equal(await status(jwt), 401);
  });

  test('a session cannot be exchanged again, for a longer one or any other', async () => {
    const account = await server.account();
    const jwt: string = (await as(server, account.token).post('/auth/session')).body.access_token;
    const again = await as(server, jwt).post('/auth/session');
    assert.deepEqual([again.status, again.body.code], [403, 'FORBIDDEN']);
    const idpSession = await rsJwt();
    assert.equal((await as(server, idpSession).post('/auth/session')).status, 403);
  });

  test('the session expires after an hour, and never after its token', async () => {
    const account = await server.account();
    const jwt: string = (await as(server, account.token).post('/auth/session')).body.access_token;
    server.clock.advance(3600_000 + 1000);
    assert.equal(await status(jwt), 401);
    const { token } = await server.marketplace.admin.createToken({ accountId: account.id, name: 'short', expiresAt: new Date(server.clock.now() + 600_000) });
    const short = await as(server, token).post('/auth/session');
    assert.equal(short.body.expires_in, 600);
  });
});
