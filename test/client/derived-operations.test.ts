import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createClient, MarketKitError, type OperationOutput } from '../../client/index.js';
import { clientRoutesSource } from '../../scripts/client-routes.js';
import { pngBytes, startServer, validAsset } from '../fixtures/server.js';

test('client/operations.ts is what the operations declare (regenerate it with scripts/typed-client-types.ts)', () => {
  assert.equal(readFileSync(new URL('../../client/operations.ts', import.meta.url), 'utf8'), clientRoutesSource());
});

test('client.operations has a method for every operation of the served OpenAPI document, and for nothing else', async () => {
  const server = await startServer();
  try {
    const document = (await (await fetch(`${server.api}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const served = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((operation) => operation.operationId));
    assert.ok(served.includes('countAssets') && served.includes('redeliverWebhook') && served.includes('listProjects'), 'the document was read');
    const { operations } = createClient({ baseUrl: server.url, token: server.seller.token });
    const methods = Object.keys(operations).filter((name) => typeof operations[name as keyof typeof operations] === 'function');
    assert.deepEqual(
      { missing: served.filter((name) => !methods.includes(name)), extra: methods.filter((name) => !served.includes(name)) },
      { missing: [], extra: [] },
    );
  } finally {
    await server.close();
  }
});

test('client.operations has a method for every operation REST serves, typed by its schemas, sent as its route', async () => {
  const server = await startServer();
  try {
    const { operations } = createClient({ baseUrl: server.url, token: server.seller.token });
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
    // A write whose declaration takes no body sends none; fields left over go as the body, which the server refuses by name.
    const extra = await operations.submitAsset({ asset_id: created.id, status: 'published' } as never).catch((error: unknown) => error);
    assert.ok(extra instanceof MarketKitError && extra.code === 'INVALID_INPUT' && extra.field === 'status', String(extra));
    assert.equal((await operations.deleteAsset({ asset_id: created.id })).success, true);
  } finally {
    await server.close();
  }
});

test('the operations that are no declaration of core/operations: health without a token, the session, the keys, Creator Studio', async () => {
  const server = await startServer();
  try {
    const anonymous = createClient({ baseUrl: server.url });
    assert.equal((await anonymous.operations.getHealth()).status, 'ok');
    assert.ok((await anonymous.operations.getJwks()).keys.length > 0);
    const { operations } = createClient({ baseUrl: server.url, token: server.seller.token });
    const session = await operations.createSession();
    assert.equal(session.token_type, 'Bearer');
    const asSession = createClient({ baseUrl: server.url, token: session.access_token });
    assert.equal((await asSession.operations.getProfile()).id, server.seller.id);

    const project = await operations.createProject({ name: 'Castle Island' });
    const board = await operations.createBoard({ project_id: project.id, name: 'Build' });
    assert.deepEqual((await operations.listBoards({ project_id: project.id })).data, [board]);
    assert.equal((await operations.exportProject({ project_id: project.id })).format, 'marketkit.studio.project');
    assert.equal((await operations.deleteProject({ project_id: project.id })).success, true);
  } finally {
    await server.close();
  }
});

test('uploadToSignedUrl and getImage speak to the URLs the answers gave: an image up, confirmed and read back', async () => {
  const server = await startServer();
  try {
    const { operations } = createClient({ baseUrl: server.url, token: server.seller.token });
    const asset = await operations.createAsset(validAsset());
    const issued = await operations.createImageUploadUrl({ asset_id: asset.id, filename: 'shot.png' });
    const progress: number[] = [];
    const put = await operations.uploadToSignedUrl({ signed_url: issued.signed_url, source: pngBytes, filename: 'shot.png' }, { onProgress: (p) => progress.push(p.loaded) });
    assert.deepEqual([put.size, progress.at(-1)], [pngBytes.byteLength, pngBytes.byteLength]);
    const confirmed = await operations.confirmAssetImage({ asset_id: asset.id, public_url: issued.public_url });
    const image = await operations.getImage({ public_url: confirmed.public_url });
    assert.equal(image.type, 'image/png');
    assert.deepEqual(new Uint8Array(await image.arrayBuffer()), pngBytes);
    const missing = await operations.getImage({ public_url: `${issued.public_url}-gone` }).catch((error: unknown) => error);
    assert.ok(missing instanceof MarketKitError && missing.status === 404, String(missing));
  } finally {
    await server.close();
  }
});
