import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createClient, MarketKitError, type OperationOutput } from '../../client/index.js';
import { developerOperations } from '../../core/operations/index.js';
import { clientRoutesSource } from '../../scripts/client-routes.js';
import { startServer, validAsset } from '../fixtures/server.js';

test('client/operations.ts is what the operations declare (regenerate it with scripts/typed-client-types.ts)', () => {
  assert.equal(readFileSync(new URL('../../client/operations.ts', import.meta.url), 'utf8'), clientRoutesSource());
});

test('client.operations has a method for every operation REST serves, typed by its schemas, sent as its route', async () => {
  const server = await startServer();
  try {
    const { operations } = createClient({ baseUrl: server.url, token: server.seller.token });
    const served = developerOperations.filter((operation) => operation.rest).map((operation) => operation.name);
    assert.deepEqual(Object.keys(operations).sort(), served.sort());

    const profile = await operations.getProfile();
    assert.equal(profile.id, server.seller.id);
    const body = validAsset({ title: 'Derived Pack' });
    const created = await operations.createAsset(body, { idempotencyKey: 'derived-create' });
    const again = await operations.createAsset(body, { idempotencyKey: 'derived-create' });
    assert.equal(again.id, created.id, 'the idempotency key is the write\'s');
    // Path parameters from their fields, the other fields as the body (PATCH) or the query (GET /assets).
    const renamed = await operations.updateAsset({ asset_id: created.id, title: 'Renamed Pack' });
    const detail: OperationOutput<'getAsset'> = await operations.getAsset({ asset_id: created.id });
    assert.deepEqual([renamed.title, detail.title, detail.file], ['Renamed Pack', 'Renamed Pack', null]);
    const page = await operations.listAssets({ status: 'draft', limit: 1 });
    assert.deepEqual([page.data.map((asset) => asset.id), page.pagination.limit], [[created.id], 1]);
    // BATCH_FAILED (422) is the batch's result, as the route declares, not a thrown error.
    const failed = await operations.createAssetBatch({ assets: [validAsset({ slug: 'Not A Slug' })] });
    assert.equal((failed as { code?: string }).code, 'BATCH_FAILED');
    const refused = await operations.getAsset({ asset_id: '00000000-0000-4000-8000-000000000000' }).catch((error: unknown) => error);
    assert.ok(refused instanceof MarketKitError && refused.code === 'NOT_FOUND', String(refused));
    assert.equal((await operations.deleteAsset({ asset_id: created.id })).success, true);
  } finally {
    await server.close();
  }
});
