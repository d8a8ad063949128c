/**
 * Testing a client with node:test and the testing kit: `node --import tsx --test upload-client.node.test.ts`
 *
 * In your project the import is `marketkit/testing`; this copy imports the repository's sources so
 * that our tests run it as it is.
 */
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { createTestMarketplace } from '../../../testing/index.js';
import { uploadClient } from './upload-client.js';

// One marketplace for the file; reset() before each test puts back the seed (well under a millisecond).
const mk = createTestMarketplace({ seed: { accounts: [{ username: 'tool-user', payouts_connected: true }] } });
beforeEach(() => mk.reset());

const listing = { title: 'Castle Pack', slug: 'castle-pack', filename: 'castle.zip', file: new TextEncoder().encode('PK\u0003\u0004 castle') };

async function client() {
  const { token } = await mk.account('tool-user');
  const waits: number[] = [];
  const tool = uploadClient({ api: mk.api, token, fetch: mk.fetch, sleep: async (ms) => void waits.push(ms) });
  return { tool, waits };
}

test('publishes a listing: created, uploaded, confirmed, submitted', async () => {
  const { tool } = await client();
  const result = await tool.publish(listing);
  assert.equal(result.status, 'pending');
  assert.deepEqual(
    mk.requests.list().map((r) => r.operation),
    ['createAsset', 'createAssetUploadUrl', 'upload', 'confirmAssetFile', 'submitAsset'],
  );
});

test('survives a 429: waits as long as Retry-After says, then retries once', async () => {
  mk.faults.rateLimit('POST /assets', { retryAfter: 2 });
  const { tool, waits } = await client();
  assert.equal((await tool.publish(listing)).status, 'pending');
  assert.deepEqual(waits, [2000]);
  assert.deepEqual(mk.requests.list({ operation: 'createAsset' }).map((r) => r.status), [429, 201]);
});

test('survives a dropped PUT: the upload is repeated and the file confirmed', async () => {
  mk.faults.drop('upload');
  const { tool } = await client();
  const { id, status } = await tool.publish(listing);
  assert.equal(status, 'pending');
  assert.deepEqual(mk.requests.list({ operation: 'upload' }).map((r) => r.status), [null, 200]);
  const asset = await mk.fetch(`${mk.api}/assets/${id}`, { headers: (await mk.account('tool-user')).headers }).then((r) => r.json());
  assert.equal(asset.file.file_size, listing.file.byteLength);
});

test('survives a PUT that breaks halfway: nothing half-written is confirmed', async () => {
  mk.faults.partialUpload();
  const { tool } = await client();
  assert.equal((await tool.publish(listing)).status, 'pending');
  assert.deepEqual(mk.requests.list({ operation: 'upload' }).map((r) => r.status), [null, 200]);
});

test('asks for a fresh upload URL when the old one is refused (403)', async () => {
  mk.faults.error('upload', 'FORBIDDEN');
  const { tool } = await client();
  assert.equal((await tool.publish(listing)).status, 'pending');
  assert.equal(mk.requests.count({ operation: 'createAssetUploadUrl' }), 2);
});

test('an upload URL that expired before the PUT (the clock moved 2 hours): a fresh one is asked for', async () => {
  const { token } = await mk.account('tool-user');
  let moved = false;
  // The client's fetch, with the kit's clock moved past the URL's lifetime just before the first PUT.
  const slowFetch = async (input: string, init?: RequestInit) => {
    if (init?.method === 'PUT' && !moved) {
      moved = true;
      await mk.clock.advance(2 * 60 * 60 * 1000 + 1000);
    }
    return mk.fetch(input, init);
  };
  const tool = uploadClient({ api: mk.api, token, fetch: slowFetch });
  assert.equal((await tool.publish(listing)).status, 'pending');
  assert.deepEqual(mk.requests.list({ operation: 'upload' }).map((r) => r.status), [403, 200]);
});

test('gives up after 3 retries of a 503, with the error', async () => {
  mk.faults.unavailable({ operation: 'submitAsset' }, { times: 10 });
  const { tool } = await client();
  await assert.rejects(tool.publish(listing), /503 SERVICE_UNAVAILABLE/);
  assert.equal(mk.requests.count({ operation: 'submitAsset' }), 4);
});

test('a flaky network with a seeded 30% of dropped PUTs fails the same way on every run', async () => {
  mk.faults.drop('upload', { probability: 0.3, seed: 3 });
  const { tool } = await client();
  const outcomes: string[] = [];
  for (let i = 0; i < 5; i++) {
    await tool.publish({ ...listing, slug: `castle-pack-${i}` }).then((r) => outcomes.push(r.status), (e: Error) => outcomes.push(e.name));
  }
  assert.deepEqual(outcomes, ['pending', 'pending', 'pending', 'pending', 'pending']);
  // The seed decides which PUTs broke: this list is the same on every run.
  assert.deepEqual(mk.requests.list({ operation: 'upload' }).map((r) => r.status ?? 'dropped'), expectedUploads);
});

// Seed 3 drops the second and the fourth PUT of the sequence, on every run.
const expectedUploads = [200, 'dropped', 200, 'dropped', 200, 200, 200];
