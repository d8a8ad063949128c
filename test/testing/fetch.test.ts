import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestMarketplace } from '../../testing/index.js';

test('the in-process fetch answers as the same kit over a real port does, request for request', async (t) => {
  const mk = createTestMarketplace();
  const seller = await mk.seller();
  const server = await mk.listen();
  t.after(() => mk.close());
  const auth = seller.headers;
  const cases: [string, RequestInit][] = [
    ['/api/v1/me', { headers: auth }],
    ['/api/v1/me', {}],
    ['/api/v1/assets?limit=2&offset=0', { headers: auth }],
    ['/api/v1/assets?limit=500', { headers: auth }],
    ['/api/v1/assets', { method: 'post', headers: { ...auth, 'Content-Type': 'application/json' }, body: '{"title":"One","slug":"one"}' }],
    ['/api/v1/assets', { method: 'POST', headers: auth, body: '{"title":"Two","slug":"two"}' }], // a string body is text/plain: 415
    ['/api/v1/assets', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: new TextEncoder().encode('{"title":"Three","slug":"three"}') }],
    ['/api/v1/assets', { method: 'POST', headers: new Headers({ ...auth, 'content-type': 'application/json' }), body: '{"title":"Four","slug":"four"}' }],
    ['/api/v1/assets', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"title":' }],
    ['/api/v1/assets/not a uuid', { headers: auth }],
    ['/api/v1/assets/%2e%2e/me', { headers: auth }],
    ['/api/v1/me', { method: 'DELETE', headers: auth }],
    ['/api/v1/nothing-here', { headers: auth }],
    ['/api/v1/health', {}],
  ];
  for (const [path, init] of cases) {
    // Each case from the same state: the in-process call's effects are undone before the HTTP one.
    const before = await mk.snapshot();
    const inProcess = await mk.fetch(`${mk.url}${path}`, init);
    await mk.restore(before);
    const overHttp = await fetch(`${server.url}${path}`, init);
    const [a, b] = [await inProcess.text(), await overHttp.text()];
    const code = (text: string) => (text.startsWith('{') ? (JSON.parse(text) as { code?: string }).code : undefined);
    assert.deepEqual([inProcess.status, code(a), inProcess.headers.get('allow')], [overHttp.status, code(b), overHttp.headers.get('allow')], `${init.method ?? 'GET'} ${path}`);
  }
  assert.equal((await mk.fetch('/api/v1/me', { headers: auth })).status, 200, 'a path alone is resolved against mk.url');
  await assert.rejects(mk.fetch('/api/v1/me', { method: 'GET', body: 'x' }), TypeError, 'GET with a body is refused as fetch refuses it');
});
