import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { callTool } from '../fixtures/mcp.js';
import { as, startServer, validAsset, type TestServer } from '../fixtures/server.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const result = async (name: string, args: Record<string, unknown>) => {
  const answer = await callTool(server, server.seller.token, name, args);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.result;
};

test('the MCP tools take and show the file’s sha256: get_asset_upload_url gives upload_url, confirm_asset_file refuses a wrong sha256 (CHECKSUM_MISMATCH) and shows the right one, get_asset too', async () => {
  const bytes = new Uint8Array(randomBytes(5000));
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const { id } = (await as(server, server.seller.token).post('/assets', validAsset())).body;
  const issued = (await result('get_asset_upload_url', { asset_id: id, filename: 'pack.zip', file_size: bytes.byteLength })).structuredContent;
  assert.match(issued.upload_url, /\/api\/v1\/uploads\//);
  assert.equal((await fetch(issued.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: bytes })).status, 200);
  const wrong = await result('confirm_asset_file', { asset_id: id, storage_path: issued.storage_path, file_size: bytes.byteLength, sha256: 'f'.repeat(64) });
  assert.equal(wrong.isError, true);
  assert.equal(wrong.structuredContent.code, 'CHECKSUM_MISMATCH');
  const confirmed = await result('confirm_asset_file', { asset_id: id, storage_path: issued.storage_path, file_size: bytes.byteLength, sha256 });
  assert.equal(confirmed.structuredContent.file.sha256, sha256);
  assert.equal((await result('get_asset', { asset_id: id })).structuredContent.file.sha256, sha256);
});
