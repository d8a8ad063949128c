/** Checks of the general rules, health, authentication, the profile and tokens. */
import { ensure, expectError, NotCertified, expectStatus, timestampPattern, uuidPattern, type Check } from './check.js';
import { createDraft, unknownId } from './flows.js';

const profileFields = ['id', 'username', 'display_name', 'bio', 'website', 'avatar_url', 'country', 'is_seller', 'seller_status', 'is_restricted', 'payouts_connected', 'subscription_tier', 'socials', 'hire', 'created_at', 'updated_at'];
const tokenFields = ['id', 'name', 'prefix', 'scopes', 'created_at', 'last_used_at', 'expires_at'];

export const generalChecks: Check[] = [
  {
    id: 'rest.general.errors',
    title: 'error bodies, unknown routes, 405 with Allow, JSON content type',
    requirements: ['GEN-ERROR-BODY', 'GEN-JSON', 'GEN-UNKNOWN-ROUTE-404', 'GEN-METHOD-405'],
    async run({ client, fixtures }) {
      const missing = await client.get('/no-such-route', fixtures.seller);
      expectError('GEN-UNKNOWN-ROUTE-404', missing, 404, 'NOT_FOUND');
      expectError('GEN-ERROR-BODY', await client.get('/me'), 401, 'UNAUTHORIZED');
      const wrongMethod = await client.request('PUT', '/assets', { token: fixtures.seller, json: {} });
      expectError('GEN-METHOD-405', wrongMethod, 405, 'METHOD_NOT_ALLOWED');
      const allow = (wrongMethod.headers.get('allow') ?? '').toUpperCase();
      ensure('GEN-METHOD-405', allow.includes('GET') && allow.includes('POST'), 'an Allow header naming GET and POST', wrongMethod);
      const me = await client.get('/me', fixtures.seller);
      ensure('GEN-JSON', /^application\/json;\s*charset=utf-8$/i.test(me.headers.get('content-type') ?? ''), 'content-type application/json; charset=utf-8', me);
      ensure('GEN-JSON', uuidPattern.test(me.body?.id) && timestampPattern.test(me.body?.created_at), 'a UUID id and a millisecond UTC created_at', me);
    },
  },
  {
    id: 'rest.general.bodies',
    title: 'bad JSON, content types, oversized bodies, unknown fields',
    requirements: ['GEN-BAD-JSON-400', 'GEN-CONTENT-TYPE-415', 'GEN-BODY-413', 'GEN-UNKNOWN-FIELD-400'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      const badJson = await client.request('POST', '/assets', { token: fixtures.seller, raw: '{"title": "x",', headers: { 'content-type': 'application/json' } });
      expectError('GEN-BAD-JSON-400', badJson, 400, 'INVALID_INPUT');
      const text = await client.request('POST', '/assets', { token: fixtures.seller, raw: JSON.stringify({ title: 'Plain Text', slug: ctx.slug() }), headers: { 'content-type': 'text/plain' } });
      expectError('GEN-CONTENT-TYPE-415', text, 415, 'UNSUPPORTED_MEDIA_TYPE');
      // Bytes, not a string: fetch would label a string text/plain.
      const untyped = await client.request('POST', '/assets', { token: fixtures.seller, raw: new TextEncoder().encode(JSON.stringify({ title: 'No Content Type', slug: ctx.slug() })) });
      expectStatus('GEN-CONTENT-TYPE-415', untyped, 201);
      const huge = await client.request('POST', '/assets', { token: fixtures.seller, raw: JSON.stringify({ title: 'Huge', slug: ctx.slug(), description: 'x'.repeat(1_200_000) }), headers: { 'content-type': 'application/json' } });
      expectError('GEN-BODY-413', huge, 413, 'PAYLOAD_TOO_LARGE');
      for (const field of ['status', 'download_count', 'id', 'titel']) {
        const extra = await client.post('/assets', fixtures.seller, { title: 'Extra Field', slug: ctx.slug(), [field]: field === 'titel' ? 'x' : field === 'status' ? 'published' : 5 });
        expectError('GEN-UNKNOWN-FIELD-400', extra, 400, 'INVALID_INPUT', field);
      }
      const asset = await createDraft(ctx);
      const patched = await client.patch(`/assets/${asset.id}`, fixtures.seller, { status: 'published' });
      expectError('GEN-UNKNOWN-FIELD-400', patched, 400, 'INVALID_INPUT', 'status');
    },
  },
  {
    id: 'rest.general.check-order',
    title: '401 before 403 before 400 before 404',
    requirements: ['GEN-CHECK-ORDER'],
    needs: ['readOnly'],
    async run({ client, fixtures }) {
      expectError('GEN-CHECK-ORDER', await client.post('/assets', null, { title: 'x' }), 401, 'UNAUTHORIZED');
      expectError('GEN-CHECK-ORDER', await client.post('/assets', fixtures.readOnly, { title: 'x' }), 403, 'FORBIDDEN');
      expectError('GEN-CHECK-ORDER', await client.patch(`/assets/${unknownId()}`, fixtures.seller, { title: 'x' }), 400, 'INVALID_INPUT', 'title');
      expectError('GEN-CHECK-ORDER', await client.patch(`/assets/${unknownId()}`, fixtures.seller, { title: 'Long Enough' }), 404, 'NOT_FOUND');
    },
  },
  {
    id: 'rest.general.request-id',
    title: 'x-request-id on every response, echoed when safe',
    requirements: ['GEN-REQUEST-ID'],
    async run({ client, fixtures }) {
      const echoed = await client.get('/me', fixtures.seller, { 'x-request-id': 'conformance-req.42' });
      ensure('GEN-REQUEST-ID', echoed.headers.get('x-request-id') === 'conformance-req.42', 'x-request-id echoed as conformance-req.42', echoed);
      for (const exchange of [await client.get('/health'), await client.get('/me'), await client.get('/me', fixtures.seller, { 'x-request-id': 'bad id with spaces' })]) {
        const id = exchange.headers.get('x-request-id');
        ensure('GEN-REQUEST-ID', !!id && id !== 'bad id with spaces', 'a generated x-request-id', exchange);
      }
    },
  },
  {
    id: 'rest.general.rate-limit-headers',
    title: 'rate-limit headers on authenticated responses',
    requirements: ['GEN-RATE-LIMIT-HEADERS'],
    async run({ client, fixtures }) {
      const me = await client.get('/me', fixtures.seller);
      for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
        ensure('GEN-RATE-LIMIT-HEADERS', /^\d+$/.test(me.headers.get(name) ?? ''), `a numeric ${name} header`, me);
      }
    },
  },
  {
    id: 'rest.health',
    title: 'GET /health without a token',
    requirements: ['HEALTH-OK'],
    async run({ client }) {
      const health = await client.get('/health');
      expectStatus('HEALTH-OK', health, 200);
      ensure('HEALTH-OK', health.body?.status === 'ok' && typeof health.body.version === 'string', '{ status: "ok", version }', health);
      ensure('HEALTH-OK', health.body.checks?.storage === 'ok' && health.body.checks?.blobs === 'ok', 'checks { storage: "ok", blobs: "ok" }', health);
    },
  },
  {
    id: 'rest.auth.missing-and-invalid',
    title: 'no token, a malformed token, an unknown well-formed token',
    requirements: ['AUTH-401', 'AUTH-TOKEN-FORMAT'],
    async run({ client, fixtures }) {
      expectError('AUTH-401', await client.get('/me'), 401, 'UNAUTHORIZED');
      expectError('AUTH-401', await client.get('/me', 'not-a-token'), 401, 'UNAUTHORIZED');
      const seller = fixtures.seller;
      // The same shape with other characters: well-formed, but not issued.
      const forged = `smcp_${[...seller.slice(5)].map((c) => (c === 'a' ? 'b' : 'a')).join('')}`;
      expectError('AUTH-401', await client.get('/assets', forged), 401, 'UNAUTHORIZED');
      ensure('AUTH-TOKEN-FORMAT', /^smcp_[A-Za-z0-9]{38,}$/.test(seller), 'the --token fixture to be smcp_ and at least 38 base62 characters');
    },
  },
  {
    id: 'rest.auth.scope',
    title: 'a token without the scope is 403 FORBIDDEN',
    requirements: ['AUTH-SCOPE-403'],
    needs: ['readOnly'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      expectStatus('AUTH-SCOPE-403', await client.get('/me', fixtures.readOnly), 200);
      expectError('AUTH-SCOPE-403', await client.post('/assets', fixtures.readOnly, { title: 'Read Only Create', slug: ctx.slug() }), 403, 'FORBIDDEN');
      expectError('AUTH-SCOPE-403', await client.patch('/me', fixtures.readOnly, { bio: 'no' }), 403, 'FORBIDDEN');
      expectError('AUTH-SCOPE-403', await client.get('/tokens', fixtures.readOnly), 403, 'FORBIDDEN');
      const asset = await createDraft(ctx);
      expectError('AUTH-SCOPE-403', await client.delete(`/assets/${asset.id}`, fixtures.readOnly), 403, 'FORBIDDEN');
      expectError('AUTH-SCOPE-403', await client.post(`/assets/${asset.id}/upload-url`, fixtures.readOnly, { filename: 'a.zip' }), 403, 'FORBIDDEN');
    },
  },
  {
    id: 'rest.auth.suspended',
    title: 'a suspended account is 403 FORBIDDEN',
    requirements: ['AUTH-SUSPENDED-403'],
    needs: ['suspended'],
    async run({ client, fixtures }) {
      expectError('AUTH-SUSPENDED-403', await client.get('/me', fixtures.suspended), 403, 'FORBIDDEN');
      expectError('AUTH-SUSPENDED-403', await client.get('/assets', fixtures.suspended), 403, 'FORBIDDEN');
    },
  },
  {
    id: 'rest.profile',
    title: 'GET and PATCH /me',
    requirements: ['PROFILE-GET', 'PROFILE-PATCH', 'PROFILE-PATCH-INVALID'],
    async run({ client, fixtures }) {
      const me = await client.get('/me', fixtures.seller);
      expectStatus('PROFILE-GET', me, 200);
      for (const field of profileFields) ensure('PROFILE-GET', field in (me.body ?? {}), `the profile field ${field}`, me);
      ensure('PROFILE-GET', me.body.is_seller === true && me.body.seller_status === 'approved', 'the --token fixture to be an approved seller', me);
      const bio = `conformance bio ${Date.now()}`;
      const patched = await client.patch('/me', fixtures.seller, { bio });
      expectStatus('PROFILE-PATCH', patched, 200);
      ensure('PROFILE-PATCH', patched.body.bio === bio && patched.body.display_name === me.body.display_name && patched.body.website === me.body.website, 'bio changed and the other fields kept', patched);
      const again = await client.get('/me', fixtures.seller);
      ensure('PROFILE-PATCH', again.body?.bio === bio, 'GET /me to show the new bio', again);
      expectError('PROFILE-PATCH-INVALID', await client.patch('/me', fixtures.seller, { website: 'ftp://example.com' }), 400, 'INVALID_INPUT', 'website');
      expectError('PROFILE-PATCH-INVALID', await client.patch('/me', fixtures.seller, { is_seller: false }), 400, 'INVALID_INPUT', 'is_seller');
    },
  },
  {
    id: 'rest.tokens.list',
    title: 'GET /tokens lists records without secrets',
    requirements: ['TOKENS-LIST'],
    async run({ client, fixtures }) {
      const listed = await client.get('/tokens', fixtures.seller);
      expectStatus('TOKENS-LIST', listed, 200);
      ensure('TOKENS-LIST', Array.isArray(listed.body?.data) && listed.body.data.length > 0, '{ data: [...] } with the caller’s tokens', listed);
      for (const token of listed.body.data) for (const field of tokenFields) ensure('TOKENS-LIST', field in token, `the token field ${field}`, listed);
      const own = listed.body.data.find((token: { prefix: string }) => fixtures.seller.startsWith(token.prefix));
      ensure('TOKENS-LIST', own && own.prefix.length === 12, 'the --token fixture listed, with a 12-character prefix', listed);
      ensure('TOKENS-LIST', timestampPattern.test(own.last_used_at ?? ''), 'a last_used_at on the token this request used', listed);
      const text = JSON.stringify(listed.body);
      ensure('TOKENS-LIST', !text.includes(fixtures.seller.slice(12)) && !/"(hash|secret|token)"\s*:/.test(text), 'no secret or hash in the list', listed);
    },
  },
  {
    id: 'rest.tokens.revoke-input',
    title: 'DELETE /tokens refuses a missing, malformed or unknown id',
    requirements: ['TOKENS-REVOKE-INPUT'],
    async run({ client, fixtures }) {
      expectError('TOKENS-REVOKE-INPUT', await client.delete('/tokens', fixtures.seller), 400, 'INVALID_INPUT', 'id');
      expectError('TOKENS-REVOKE-INPUT', await client.delete('/tokens?id=not-a-uuid', fixtures.seller), 400, 'INVALID_INPUT', 'id');
      expectError('TOKENS-REVOKE-INPUT', await client.delete(`/tokens?id=${unknownId()}`, fixtures.seller), 404, 'NOT_FOUND');
    },
  },
  {
    id: 'rest.tokens.revoke',
    title: 'a revoked token stops working at once, on REST and MCP',
    requirements: ['TOKENS-REVOKE', 'AUTH-REVOKED-401'],
    needs: ['revocable'],
    async run({ client, fixtures }) {
      const revocable = fixtures.revocable!;
      const before = await client.get('/me', revocable);
      if (before.status === 401) throw new NotCertified('the --token-revocable token no longer works (a run revokes it): give a new one');
      expectStatus('AUTH-REVOKED-401', before, 200);
      const listed = await client.get('/tokens', fixtures.seller);
      expectStatus('TOKENS-LIST', listed, 200);
      const record = (listed.body?.data ?? []).find((token: { prefix: string }) => revocable.startsWith(token.prefix));
      ensure('TOKENS-REVOKE', record, 'the --token-revocable fixture in the main seller’s GET /tokens', listed);
      const revoked = await client.delete(`/tokens?id=${record.id}`, fixtures.seller);
      expectStatus('TOKENS-REVOKE', revoked, 200);
      ensure('TOKENS-REVOKE', revoked.body?.success === true && revoked.body.id === record.id && timestampPattern.test(revoked.body.revoked_at), '{ success: true, id, revoked_at }', revoked);
      expectError('AUTH-REVOKED-401', await client.get('/me', revocable), 401, 'UNAUTHORIZED');
      const mcp = await client.tool('health_check', {}, revocable);
      expectStatus('AUTH-REVOKED-401', mcp, 401);
      expectStatus('TOKENS-REVOKE', await client.delete(`/tokens?id=${record.id}`, fixtures.seller), 200);
      const after = await client.get('/tokens', fixtures.seller);
      ensure('TOKENS-REVOKE', !(after.body?.data ?? []).some((token: { id: string }) => token.id === record.id), 'the revoked token left out of GET /tokens', after);
    },
  },
];

/** Last of all: it spends the read-only token's budget for the rest of the window. */
export const rateLimitChecks: Check[] = [
  {
    id: 'rest.general.rate-limit',
    title: 'past the limit: 429 RATE_LIMITED with Retry-After, for that caller only; no window boundary gives the budget back whole',
    requirements: ['GEN-RATE-LIMIT-429', 'GEN-RATE-LIMIT-SLIDING'],
    needs: ['readOnly'],
    unavailable: (ctx) => (ctx.settings.rateLimitProbe ? null : 'needs --rate-limit-probe N (it spends the --token-read-only budget; N well above the server’s read limit per window, twice it to be safe)'),
    async run({ client, fixtures, settings }) {
      const probe = settings.rateLimitProbe!;
      const first = await client.request('GET', '/me', { token: fixtures.readOnly, keepRateLimited: true });
      const limit = Number(first.headers.get('ratelimit-limit'));
      if (limit >= probe) throw new NotCertified(`the read limit here is ${limit} per window; --rate-limit-probe ${probe} is too low to reach it`);
      const probeStart = Date.now();
      let served = first.status === 200 ? 1 : 0;
      let limited = first;
      let limitedSentAt = probeStart;
      let remaining = Number(first.headers.get('ratelimit-remaining'));
      let windows = 1;
      for (let sent = 1; sent <= probe && limited.status !== 429; sent++) {
        limitedSentAt = Date.now();
        limited = await client.request('GET', '/me', { token: fixtures.readOnly, keepRateLimited: true });
        if (limited.status !== 200 && limited.status !== 429) break;
        if (limited.status === 200) served++;
        const now = Number(limited.headers.get('ratelimit-remaining'));
        // A new window began while probing (its count starts over), or a sliding window gave some
        // back: probe on from here, once.
        if (now > remaining && windows < 2) {
          windows++;
          sent = 1;
        }
        remaining = now;
      }
      if (limited.status === 200) {
        // No 429: a failure, unless the budget may have come back as fast as this client asked.
        const elapsedSeconds = (Date.now() - probeStart) / 1000;
        const most = limit + Math.ceil((limit * elapsedSeconds) / (settings.rateLimitWindowSeconds ?? 60)) + 1;
        if (served <= most) throw new NotCertified(`${served} requests in ${elapsedSeconds.toFixed(1)} s met no 429, within what a sliding limit of ${limit} may serve in that time: give a larger --rate-limit-probe`);
      }
      expectError('GEN-RATE-LIMIT-429', limited, 429, 'RATE_LIMITED');
      ensure('GEN-RATE-LIMIT-429', /^\d+$/.test(limited.headers.get('retry-after') ?? ''), 'a Retry-After header in seconds', limited);
      ensure('GEN-RATE-LIMIT-429', limited.headers.get('ratelimit-remaining') === '0', 'RateLimit-Remaining 0', limited);
      // Per caller: the main seller's own budget is untouched.
      expectStatus('GEN-RATE-LIMIT-429', await client.request('GET', '/me', { token: fixtures.seller, keepRateLimited: true }), 200);

      // The boundary. A fixed window gives its whole budget back at its end, which is what its
      // Retry-After names; a sliding window gives back at most `limit` per window, a little at a
      // time. So: wait as told, then ask again as fast as one client can, from the side of the
      // boundary where a fixed window is whole again. Since the 429 the budget may have come back
      // by at most limit x elapsed / window (plus one for rounding): a burst straddling the
      // boundary then gets no more than the limit in all.
      const windowSeconds = settings.rateLimitWindowSeconds ?? 60;
      const retryAfter = Number(limited.headers.get('retry-after'));
      await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(retryAfter, 1), 65) * 1000));
      let since = 0;
      for (let sent = 0; sent < probe; sent++) {
        const answer = await client.request('GET', '/me', { token: fixtures.readOnly, keepRateLimited: true });
        const elapsedSeconds = (Date.now() - limitedSentAt) / 1000;
        const cameBack = Math.ceil((limit * elapsedSeconds) / windowSeconds) + 1;
        if (answer.status === 200) since++;
        ensure(
          'GEN-RATE-LIMIT-SLIDING',
          since <= cameBack,
          `after the 429 and its Retry-After of ${retryAfter} s, at most ${cameBack} more calls answered in ${elapsedSeconds.toFixed(1)} s (the limit of ${limit} coming back over a ${windowSeconds} s window); ${since} were: the budget came back whole at a window boundary`,
          answer,
        );
        if (answer.status !== 200) break;
      }
    },
  },
];
