/**
 * A client that calls the global fetch with its real address, tested with MSW passing every request
 * to the testing kit: `node --import tsx --test msw.node.test.ts`. The same works in Vitest or Jest.
 *
 * In your project the import is `marketkit/testing`; this copy imports the repository's sources so
 * that our tests run it as it is.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { createTestMarketplace } from '../../../testing/index.js';
import { uploadClient } from './upload-client.js';

const site = 'https://market.example';
// The kit answers as the real address, so the signed upload URLs it issues point there too.
const mk = createTestMarketplace({ baseUrl: site });

// Every request to the marketplace's address goes to the kit; a dropped connection becomes MSW's network error.
const server = setupServer(
  http.all(`${site}/*`, async ({ request }) => {
    try {
      return await mk.fetch(request);
    } catch {
      return HttpResponse.error();
    }
  }),
);
before(() => server.listen({ onUnhandledRequest: 'error' }));
after(() => server.close());
beforeEach(() => mk.reset());

const listing = { title: 'Desert Pack', slug: 'desert-pack', filename: 'desert.zip', file: new TextEncoder().encode('PK\u0003\u0004 desert') };

test('the client, unchanged, talks to https://market.example and gets the kit', async () => {
  const seller = await mk.seller();
  const tool = uploadClient({ api: `${site}/api/v1`, token: seller.token }); // no fetch passed: the global one
  assert.equal((await tool.publish(listing)).status, 'pending');
  assert.ok(mk.requests.list().every((r) => r.status !== null && r.status < 300));
});

test('a dropped PUT reaches the client as a network error, which it retries', async () => {
  mk.faults.drop('upload');
  const seller = await mk.seller();
  const tool = uploadClient({ api: `${site}/api/v1`, token: seller.token });
  assert.equal((await tool.publish(listing)).status, 'pending');
  assert.deepEqual(mk.requests.list({ operation: 'upload' }).map((r) => r.status), [null, 200]);
});
