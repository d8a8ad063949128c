/**
 * Security finding 1 of wave 2 (docs/security.md, "Findings of the wave-2 security test"): U+0000
 * in any string a client sends was a 500 on PostgreSQL, whose text cannot hold it, and a 4xx
 * elsewhere. Now every store answers alike: 400 INVALID_INPUT naming the field, before storage.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { callToolIn, mcpEras } from '../fixtures/mcp.js';
import { as, call, validAsset } from '../fixtures/server.js';
import { startServerOn, stopStores, storeNames } from '../fixtures/stores.js';

after(stopStores);

const serviceKey = 'test-service-key-0123456789abcdef0123456789';

for (const store of storeNames) {
  describe(`U+0000 on ${store}`, () => {
    test('a title, a description, a path parameter, a query, a profile, a webhook, a studio text and an admin lookup are 400 naming the field', async (t) => {
      const server = await startServerOn(store, { serviceKey });
      t.after(() => server.close());
      const seller = as(server, server.seller.token);
      // A value its schema refuses anyway (a single-line text, an enum) is refused with the schema's words.
      const refused = (answer: { status: number; body: any }, field: string, what: string, words = /U\+0000|on one line|control characters/) => {
        assert.equal(answer.status, 400, `${what}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.code, 'INVALID_INPUT', what);
        assert.equal(answer.body.details[0].path, field, what);
        assert.match(answer.body.error, words, what);
      };
      refused(await seller.post('/assets', validAsset({ title: 'a\u0000b' })), 'title', 'POST /assets title');
      refused(await seller.post('/assets', validAsset({ description: 'line\u0000' })), 'description', 'POST /assets description');
      refused(await seller.post('/assets', validAsset({ tags: ['ok', 'b\u0000d'] })), 'tags[1]', 'POST /assets tags');
      refused(await seller.get('/assets/%00'), 'asset_id', 'GET /assets/%00');
      refused(await seller.get('/assets?status=%00'), 'status', 'GET /assets?status=%00', /must be one of/);
      refused(await seller.patch('/me', { display_name: 'Cas\u0000tle' }), 'display_name', 'PATCH /me');
      refused(await seller.post('/webhooks', { url: 'https://hooks.example/in', description: 'd\u0000' }), 'description', 'POST /webhooks');
      refused(await seller.get('/webhooks/%00'), 'endpoint_id', 'GET /webhooks/%00');
      refused(await seller.post('/studio/projects', { name: 'p\u0000' }), 'name', 'POST /studio/projects');
      refused(await seller.post('/assets', { ...validAsset(), 'x\u0000': 1 }), 'x\u0000', 'a field name', /not a field/);
      const { id } = (await seller.post('/assets', validAsset())).body;
      refused(await seller.patch(`/assets/${id}`, { title: 'Ti\u0000tle' }), 'title', 'PATCH /assets/:id');

      const admin = (method: string, path: string, body?: unknown) =>
        call(server, method, `${server.url}/api/admin${path}`, { token: serviceKey, ...(body ? { body } : {}) });
      refused(await admin('GET', '/accounts/%00'), 'account', 'GET /api/admin/accounts/%00');
      refused(await admin('POST', '/accounts', { username: 'a\u0000b' }), 'username', 'POST /api/admin/accounts username', /letters, digits/);
      refused(await admin('POST', '/accounts', { username: `nul-${store}`, display_name: 'a\u0000b' }), 'display_name', 'POST /api/admin/accounts display_name');

      for (const era of mcpEras) {
        const answer = await callToolIn(era, server, server.seller.token, 'create_asset', validAsset({ title: 'mcp\u0000' }));
        assert.equal(answer.status, 200, era);
        const result = answer.body.result;
        assert.equal(result.isError, true, era);
        assert.equal(result.structuredContent.code, 'INVALID_INPUT', era);
        assert.equal(result.structuredContent.details[0].path, 'title', era);
        const byId = await callToolIn(era, server, server.seller.token, 'get_asset', { asset_id: '\u0000' });
        assert.equal(byId.body.result.structuredContent.code, 'INVALID_INPUT', era);
      }
      // Nothing was stored: the seller still has the one listing.
      assert.equal((await seller.get('/assets')).body.pagination.total, 1);
    });
  });
}
