/**
 * Security finding 2 of wave 2 (docs/security.md, "Findings of the wave-2 security test"):
 * `list_my_assets {"offset":1e20}` was HTTP 500 / -32603 on SQLite and PostgreSQL in both MCP
 * eras, and a price had no maximum. Every numeric input now has one bound, checked before storage,
 * that its column holds: the largest allowed value works on every store, the next is 400.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { maxOffset } from '../../core/schemas/common.js';
import { limits } from '../../core/schemas/asset.js';
import { callToolIn, mcpEras } from '../fixtures/mcp.js';
import { as, validAsset } from '../fixtures/server.js';
import { startServerOn, stopStores, storeNames } from '../fixtures/stores.js';

after(stopStores);

for (const store of storeNames) {
  describe(`numeric bounds on ${store}`, () => {
    test('an offset of 1e20 or 2^63 is an isError INVALID_INPUT naming offset in both eras; the largest offset answers an empty page', async (t) => {
      const server = await startServerOn(store);
      t.after(() => server.close());
      for (const era of mcpEras) {
        for (const offset of [1e20, 2 ** 63, 2 ** 53, maxOffset + 1]) {
          const answer = await callToolIn(era, server, server.seller.token, 'list_my_assets', { offset });
          assert.equal(answer.status, 200, `${era} offset ${offset}: ${JSON.stringify(answer.body)}`);
          assert.equal(answer.body.result?.isError, true, `${era} offset ${offset}`);
          assert.equal(answer.body.result.structuredContent.code, 'INVALID_INPUT');
          assert.equal(answer.body.result.structuredContent.details[0].path, 'offset');
        }
        const last = await callToolIn(era, server, server.seller.token, 'list_my_assets', { offset: maxOffset });
        assert.equal(last.body.result?.isError, undefined, `${era} offset ${maxOffset}: ${JSON.stringify(last.body)}`);
        assert.deepEqual(last.body.result.structuredContent.data, []);
      }
      const seller = as(server, server.seller.token);
      assert.equal((await seller.get(`/assets?offset=${maxOffset}`)).status, 200);
      const past = await seller.get(`/assets?offset=${maxOffset + 1}`);
      assert.equal(past.status, 400);
      assert.equal(past.body.details[0].path, 'offset');
      const endpoint = (await seller.post('/webhooks', { url: 'https://hooks.example/in' })).body;
      assert.equal((await seller.get(`/webhooks/${endpoint.id}/deliveries?offset=${maxOffset}`)).status, 200);
      assert.equal((await seller.get(`/webhooks/${endpoint.id}/deliveries?offset=${maxOffset + 1}`)).status, 400);
    });

    test('a price is at most 1,000,000: PATCH 9223372036854775808 and 1e308 are 400, 1000000 is kept', async (t) => {
      const server = await startServerOn(store);
      t.after(() => server.close());
      const seller = as(server, server.seller.token);
      const { id } = (await seller.post('/assets', validAsset())).body;
      for (const price of ['9223372036854775808', '1e308', String(limits.priceMax + 0.01)]) {
        const response = await fetch(`${server.api}/assets/${id}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${server.seller.token}`, 'content-type': 'application/json' },
          body: `{"pricing_type":"fixed","price":${price}}`,
        });
        const body = await response.json();
        assert.equal(response.status, 400, `price ${price}: ${JSON.stringify(body)}`);
        assert.equal(body.details[0].path, 'price');
      }
      const kept = await seller.patch(`/assets/${id}`, { pricing_type: 'fixed', price: limits.priceMax });
      assert.equal(kept.status, 200);
      assert.equal((await seller.get(`/assets/${id}`)).body.price, limits.priceMax);
    });
  });
}
