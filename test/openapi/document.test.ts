import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { validate } from '@readme/openapi-parser';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import { createMarketplace } from '../../core/index.js';
import { uploadFlow } from '../../docs/examples/typed-client/upload-flow.js';
import { checkAgainstDocument, documentedOperations, exercised } from '../fixtures/openapi.js';
import { as, assetWithFile, call, forceStatus, pngBytes, putSigned, startServer, uploadImage, validAsset, webpBytes, type TestServer } from '../fixtures/server.js';
import { exerciseStudio } from '../fixtures/studio.js';
import { exerciseWebhooks } from '../fixtures/webhooks.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

let server: TestServer;
let dir: string;
before(async () => {
  server = await startServer();
  dir = mkdtempSync(join(tmpdir(), 'marketkit-openapi-'));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

async function servedDocument() {
  const res = await fetch(`${server.api}/openapi.json`);
  assert.equal(res.status, 200);
  return { res, document: (await res.json()) as Record<string, any> };
}

describe('the document', () => {
  test('an independent OpenAPI 3.1 validator accepts it with no errors or warnings', async () => {
    const { document } = await servedDocument();
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const result = await validate(file);
    assert.deepEqual(result, { valid: true, warnings: [], specification: 'OpenAPI' });
    assert.equal(document.openapi, '3.1.0');
    assert.equal(document.info.version, '1.0.0');
  });

  test('is served without authentication, reflects the site URL, and answers 304 to its ETag', async () => {
    const { res, document } = await servedDocument();
    assert.deepEqual(document.servers, [{ url: server.api }], 'derived from the request without a configured site URL');
    const configured = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), siteUrl: 'https://market.example/' });
    const remote = await (await configured.fetch(new Request('http://internal:3000/api/v1/openapi.json'))).json();
    assert.deepEqual(remote.servers, [{ url: 'https://market.example/api/v1' }], 'the configured site URL wins');
    const etag = res.headers.get('etag');
    assert.match(etag ?? '', /^"[0-9a-f]{32}"$/);
    const again = await fetch(`${server.api}/openapi.json`, { headers: { 'if-none-match': etag! } });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
    const weak = await fetch(`${server.api}/openapi.json`, { headers: { 'if-none-match': `"other", W/${etag}` } });
    assert.equal(weak.status, 304);
    assert.equal((await fetch(`${server.api}/openapi.json`, { headers: { 'if-none-match': '"stale"' } })).status, 200);
  });

  test('every operation of the spec is there, with readable operationIds, its scope, and /health without security', async () => {
    const { document } = await servedDocument();
    const ops = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
    );
    const keys = ops.map((o) => o.key).sort();
    for (const key of [
      'GET /health', 'GET /me', 'PATCH /me', 'GET /assets', 'POST /assets', 'POST /assets/batch', 'GET /assets/{id}', 'PATCH /assets/{id}',
      'DELETE /assets/{id}', 'POST /assets/{id}/upload-url', 'POST /assets/{id}/confirm-file', 'POST /assets/{id}/images/upload-url',
      'POST /assets/{id}/confirm-image', 'POST /assets/{id}/submit', 'GET /tokens', 'DELETE /tokens',
    ]) {
      assert.ok(keys.includes(key), `${key} is documented`);
    }
    const byKey = Object.fromEntries(ops.map((o) => [o.key, o.op]));
    assert.equal(byKey['POST /assets'].operationId, 'createAsset');
    assert.equal(byKey['POST /assets/{id}/confirm-file'].operationId, 'confirmAssetFile');
    assert.deepEqual(byKey['POST /assets'].security, [{ bearerAuth: ['assets:write'] }]);
    assert.match(byKey['PATCH /me'].description, /profile:write/);
    assert.deepEqual(byKey['GET /health'].security, []);
    assert.deepEqual(Object.keys(byKey['POST /assets'].responses).sort(), ['201', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503']);
    assert.deepEqual(byKey['POST /assets'].responses['403'].content['application/json'].schema.allOf[1].properties.code.enum, ['FORBIDDEN', 'NOT_A_SELLER', 'ACCOUNT_RESTRICTED']);
    assert.ok(byKey['POST /assets'].requestBody.content['application/json'].example, 'an example body');
  });

  test('the response check fails on a response the document does not allow', () => {
    const asset = { id: crypto.randomUUID() };
    assert.throws(() => checkAgainstDocument('GET', `${server.api}/assets/${asset.id}`, 200, asset), /does not match the OpenAPI document/);
    assert.throws(() => checkAgainstDocument('GET', `${server.api}/assets/${asset.id}`, 418, {}), /does not list/);
    assert.throws(() => checkAgainstDocument('POST', `${server.api}/assets`, 409, { error: 'x', code: 'NO_FILE' }), /does not match/);
  });
});

test('marketkit openapi prints the same document, for the site URL it is given', async () => {
  const { stdout } = await run(process.execPath, [join(root, 'bin/marketkit.js'), 'openapi', '--site-url', 'https://market.example'], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  const printed = JSON.parse(stdout);
  assert.deepEqual(printed.servers, [{ url: 'https://market.example/api/v1' }]);
  const { document } = await servedDocument();
  assert.deepEqual({ ...printed, servers: null }, { ...document, servers: null });
});

test('every documented operation is exercised, and every answer matches the document', async () => {
  // The other test files hold each of their responses to the document as well; this one walks every operation in one process.
  const client = as(server, server.seller.token);
  await call(server, 'GET', '/health');
  await client.get('/me');
  await client.patch('/me', { bio: 'Builder of castles.' });
  await client.get('/categories');
  await client.get('/assets?limit=5');
  await client.get('/assets/counts');
  await client.post('/assets/batch', { assets: [validAsset()] });
  const { id } = await assetWithFile(server, server.seller.token);
  const image = await uploadImage(server, server.seller.token, id, pngBytes);
  await call(server, 'GET', new URL(image.body.public_url).pathname.slice('/api/v1'.length)); // getImage
  const second = await uploadImage(server, server.seller.token, id, pngBytes);
  await call(server, 'PUT', `/assets/${id}/images/order`, { token: server.seller.token, body: { image_ids: [second.body.id, image.body.id] } });
  await call(server, 'PUT', `/assets/${id}/images/order`, { token: server.seller.token, body: { image_ids: [second.body.id] } }); // 400
  await client.get(`/assets/${id}`);
  await client.patch(`/assets/${id}`, { title: 'Renamed Pack' });
  await client.post(`/assets/${id}/submit`);
  await client.delete(`/assets/${id}`); // 409 NOT_DRAFT
  const draft = (await client.post('/assets', validAsset())).body.id;
  await client.delete(`/assets/${draft}`);
  const live = (await assetWithFile(server, server.seller.token)).id;
  await forceStatus(server, live, 'published');
  await client.post(`/assets/${live}/upload-url`, { filename: 'v2.zip' }); // 409 LISTING_IS_LIVE
  // Its new file as a version: every version operation, and a refusal of each kind they give.
  const version = (await client.post(`/assets/${live}/versions`, { version: '2.0.0', release_notes: 'New towers' })).body.id;
  await client.post(`/assets/${live}/versions`, { version: '0.1.0' }); // 409 VERSION_NOT_HIGHER
  await client.get(`/assets/${live}/versions`);
  await client.patch(`/assets/${live}/versions/${version}`, { release_notes: 'New towers and walls' });
  await client.post(`/assets/${live}/versions/${version}/submit`); // 422 NO_FILE
  const issued = (await client.post(`/assets/${live}/versions/${version}/upload-url`, { filename: 'v2.zip' })).body;
  await putSigned(issued.signed_url, 'PK version two', 'application/zip');
  await client.post(`/assets/${live}/versions/${version}/confirm-file`, { storage_path: issued.storage_path, file_size: 14 });
  // A new gallery: an image added, one refused (not an image), the first removed again.
  const shot = (await client.post(`/assets/${live}/versions/${version}/images/upload-url`, { filename: 'shot.png' })).body;
  await putSigned(shot.signed_url, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]), 'image/png');
  const added = (await client.post(`/assets/${live}/versions/${version}/confirm-image`, { public_url: shot.public_url })).body;
  await client.post(`/assets/${live}/versions/${version}/confirm-image`, { public_url: `${shot.public_url}x` }); // 400
  await call(server, 'PUT', `/assets/${live}/versions/${version}/images/order`, { token: server.seller.token, body: { image_ids: [added.id] } });
  await call(server, 'PUT', `/assets/${live}/versions/${version}/images/order`, { token: server.seller.token, body: { image_ids: [] } }); // 400
  await client.delete(`/assets/${live}/versions/${version}/images/${added.id}`);
  await client.delete(`/assets/${live}/versions/${version}/images/${added.id}`); // 404
  await client.post(`/assets/${live}/versions/${version}/submit`);
  await client.get(`/assets/${live}/versions/${version}`);
  await client.post(`/assets/${live}/versions/${version}/withdraw`);
  await putSigned(`${server.api}/blobs/assets/x/files/y/z.zip?expires=1&max=1&signature=AAAA`, 'x', 'application/zip'); // 403
  const account = await server.account();
  await as(server, account.token).get('/tokens');
  await as(server, account.token).post('/auth/session');
  await call(server, 'GET', '/.well-known/jwks.json');
  await as(server, account.token).delete(`/tokens?id=${account.tokenId}`);
  await as(server, account.token).get('/me'); // 401 after revocation
  await exerciseStudio(server, server.seller.token);
  await exerciseWebhooks(server, server.seller.token);
  assert.deepEqual(documentedOperations().filter((op) => !exercised.has(op)), [], 'operations no test exercised');
});

test('a client typed from the document (openapi-typescript) runs the whole upload flow', async () => {
  const { document } = await servedDocument();
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(document));
  const generated = join(dir, 'marketkit-api.d.ts');
  await run(process.execPath, [join(root, 'node_modules/openapi-typescript/bin/cli.js'), file, '-o', generated], { cwd: root });
  assert.equal(
    readFileSync(generated, 'utf8'),
    readFileSync(join(root, 'docs/examples/typed-client/marketkit-api.d.ts'), 'utf8'),
    'docs/examples/typed-client/marketkit-api.d.ts is current (regenerate it with openapi-typescript when the API changes)',
  );
  // `tsc -p .` (the first step of npm test) type-checks the script against these types; here it runs.
  const result = await uploadFlow(server.url, server.seller.token, new Uint8Array(2048), webpBytes, `typed-${Date.now()}`);
  assert.equal(result.submitted.status, 'pending');
  assert.equal(result.confirmed.is_primary, true);
  assert.equal(result.asset.file?.file_size, 2048);
});
