import assert from 'node:assert/strict';
import { test } from 'node:test';
import { as, assetWithFile, startServer } from '../fixtures/server.js';

test('a function onSubmit decides per listing: approve publishes at once, queue leaves it pending', async (t) => {
  const seen: { title: string; status: string }[] = [];
  const server = await startServer({
    moderation: {
      onSubmit: async (listing) => {
        seen.push({ title: listing.title, status: listing.status });
        return listing.title.startsWith('Trusted') ? 'approve' : 'queue';
      },
    },
  });
  t.after(() => server.close());
  const seller = as(server, server.seller.token);
  const trusted = await assetWithFile(server, server.seller.token, { title: 'Trusted walls' });
  const other = await assetWithFile(server, server.seller.token, { title: 'Other walls' });
  assert.equal((await seller.post(`/assets/${trusted.id}/submit`)).body.status, 'published');
  assert.equal((await seller.post(`/assets/${other.id}/submit`)).body.status, 'pending');
  assert.deepEqual(seen, [
    { title: 'Trusted walls', status: 'pending' },
    { title: 'Other walls', status: 'pending' },
  ], 'the hook sees the listing as stored, pending');
  assert.equal((await seller.get(`/assets/${trusted.id}`)).body.status, 'published');
});

test('a hook that throws or answers nonsense leaves the listing queued, the submit succeeds, and onError hears of it', async (t) => {
  const errors: { error: unknown; path: string }[] = [];
  let answer: () => unknown = () => {
    throw new Error('policy service down');
  };
  const server = await startServer({
    moderation: { onSubmit: async () => answer() as 'queue' },
    onError: (error, request) => errors.push({ error, path: request.path }),
  });
  t.after(() => server.close());
  const seller = as(server, server.seller.token);
  const first = await assetWithFile(server, server.seller.token);
  const submitted = await seller.post(`/assets/${first.id}/submit`);
  assert.equal(submitted.status, 200);
  assert.equal(submitted.body.status, 'pending');
  assert.equal(errors.length, 1);
  assert.equal(errors[0]!.path, 'moderation.onSubmit');
  assert.match(String(errors[0]!.error), /policy service down/);
  answer = () => 'publish-please';
  const second = await assetWithFile(server, server.seller.token);
  assert.equal((await seller.post(`/assets/${second.id}/submit`)).body.status, 'pending');
  assert.match(String(errors[1]!.error), /answered "publish-please"/);
});
