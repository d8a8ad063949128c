import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, startCliServer, tempDir } from '../fixtures/cli.js';

const json = async (url: string, init: { method?: string; body?: unknown; token?: string } = {}) => {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
};

test('serve --memory --test-controls: reset, seed, fixtures, clock, faults, requests, events and moderate over HTTP', async (t) => {
  const server = await startCliServer(['--memory', '--test-controls']);
  t.after(() => server.stop());
  const controls = `${server.info.url}/__marketkit`;
  const { api } = server.info;
  assert.equal(server.info.dev_seller.username, 'seller');

  const seeded = await json(`${controls}/seed`, {
    method: 'POST',
    body: {
      accounts: [{ username: 'py-dev' }],
      assets: [{ owner: 'py-dev', title: 'Seeded over HTTP', slug: 'seeded-over-http', status: 'pending', file: true }],
    },
  });
  assert.equal(seeded.status, 200);
  const token: string = seeded.body.accounts['py-dev'].token;
  const list = await json(`${api}/assets`, { token });
  assert.deepEqual(list.body.data.map((a: { slug: string; status: string }) => [a.slug, a.status]), [['seeded-over-http', 'pending']]);
  const assetId: string = list.body.data[0].id;

  const fixtures = await json(`${controls}/fixtures`);
  assert.equal(fixtures.body.accounts.restricted.username, 'restricted-seller');
  assert.equal((await json(`${api}/me`, { token: fixtures.body.accounts.seller.token })).status, 200);

  const rule = await json(`${controls}/faults`, { method: 'POST', body: { target: 'GET /assets', kind: 'rateLimit', retryAfter: 5, times: 1 } });
  assert.equal(rule.status, 201);
  const limited = await json(`${api}/assets`, { token });
  assert.deepEqual([limited.status, limited.body.code, limited.headers.get('retry-after')], [429, 'RATE_LIMITED', '5']);
  assert.equal((await json(`${api}/assets`, { token })).status, 200, 'once');
  const logged = await json(`${controls}/requests?operation=listAssets`);
  assert.deepEqual(logged.body.data.map((r: { status: number }) => r.status), [200, 429, 200]);

  const approved = await json(`${controls}/moderate`, { method: 'POST', body: { action: 'approve', asset_id: assetId } });
  assert.deepEqual([approved.status, approved.body.status], [200, 'published']);
  const events = await json(`${controls}/events`);
  assert.ok(events.body.data.some((e: { type: string; asset_id: string }) => e.type === 'asset.published' && e.asset_id === assetId));

  const before = Date.parse((await json(`${controls}/clock`)).body.now);
  const moved = await json(`${controls}/clock`, { method: 'POST', body: { advance_ms: 7_200_000 } });
  assert.equal(Date.parse(moved.body.now) - before, 7_200_000);

  const bad = await json(`${controls}/clock`, { method: 'POST', body: { advance_ms: 'soon' } });
  assert.deepEqual([bad.status, bad.body.code], [400, 'INVALID_INPUT']);
  assert.match(bad.body.error, /advance_ms/);
  const badRule = await json(`${controls}/faults`, { method: 'POST', body: { target: 'GET /me', kind: 'error', code: 'NOPE' } });
  assert.deepEqual([badRule.status, badRule.body.code], [400, 'INVALID_INPUT']);
  assert.match(badRule.body.error, /code must be one of the catalogue/);
  const badSeed = await json(`${controls}/seed`, { method: 'POST', body: { assets: [{ owner: 'ghost', title: 'x', slug: 'x' }] } });
  assert.equal(badSeed.status, 400);
  assert.match(badSeed.body.error, /ghost/);
  const refusedSeed = await json(`${controls}/seed`, { method: 'POST', body: { assets: [{ owner: 'seller', title: 'x', slug: 'too-short' }] } });
  assert.equal(refusedSeed.status, 400);
  assert.match(refusedSeed.body.error, /assets\[0\].*title/);
  assert.equal((await json(`${api}/assets`, { token })).status, 200, 'the previous seed, its token included, is still in place');
  assert.equal((await json(`${controls}/nothing`, { method: 'POST' })).status, 404);

  // reset: back to the last seed, and the seed's tokens still work.
  assert.equal((await json(`${controls}/reset`, { method: 'POST' })).status, 200);
  assert.equal(Date.parse((await json(`${controls}/clock`)).body.now), before);
  const afterReset = await json(`${api}/assets`, { token });
  assert.deepEqual(afterReset.body.data.map((a: { status: string }) => a.status), ['pending']);
  assert.deepEqual((await json(`${controls}/requests`)).body.data.length, 1, 'the log starts over (the control calls are not in it)');
});

test('without --test-controls the controls do not exist (404), on memory and on SQLite', async (t) => {
  const memory = await startCliServer(['--memory']);
  t.after(() => memory.stop());
  const sqlite = await startCliServer(['--data-dir', tempDir(t)]);
  t.after(() => sqlite.stop());
  for (const server of [memory, sqlite]) {
    for (const [method, path] of [['POST', 'reset'], ['GET', 'fixtures'], ['POST', 'seed'], ['GET', 'requests']] as const) {
      const answer = await json(`${server.info.url}/__marketkit/${path}`, { method, ...(method === 'POST' ? { body: {} } : {}) });
      assert.equal(answer.status, 404, `${server.info.storage.kind} ${method} ${path}`);
    }
  }
});

test('--test-controls with SQLite (no --memory) or with --blobs is refused with a clear message', async (t) => {
  const dir = tempDir(t);
  const refused = await runCli(['serve', '--test-controls', '--port', '0', '--data-dir', dir]);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /--test-controls needs --memory/);
  assert.match(refused.stderr, /never run on a SQLite data directory/);
  const withBlobs = await runCli(['serve', '--memory', '--test-controls', '--blobs', 's3', '--port', '0']);
  assert.notEqual(withBlobs.code, 0);
  assert.match(withBlobs.stderr, /--test-controls keeps blobs in memory/);
});
