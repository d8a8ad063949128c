import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestMarketplace } from '../../testing/index.js';
import { draftWithFile, send } from './kit-client.js';

test('clock.advance past the upload URL lifetime: the PUT is refused with 403, and a fresh URL works', async () => {
  const mk = createTestMarketplace({ marketplace: { uploadUrlTtlSeconds: 3600 } });
  const seller = await mk.seller();
  const created = await send(mk, 'POST', '/assets', { as: seller, body: { title: 'Slow upload', slug: 'slow-upload' } });
  const issued = await send(mk, 'POST', `/assets/${created.body.id}/upload-url`, { as: seller, body: { filename: 'pack.zip' } });
  assert.equal(Date.parse(issued.body.expires_at), Math.floor((mk.clock.now() + 3_600_000) / 1000) * 1000, 'expires_at follows the kit clock');
  await mk.clock.advance(3_600_000 + 1000);
  const put = await mk.fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: 'PK late' });
  assert.equal(put.status, 403);
  const again = await send(mk, 'POST', `/assets/${created.body.id}/upload-url`, { as: seller, body: { filename: 'pack.zip' } });
  const retried = await mk.fetch(again.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: 'PK late' });
  assert.equal(retried.status, 200);
});

test('just before expiry the PUT still works', async () => {
  const mk = createTestMarketplace({ now: '2026-05-01T00:00:00.000Z', marketplace: { uploadUrlTtlSeconds: 60 } });
  const seller = await mk.seller();
  const created = await send(mk, 'POST', '/assets', { as: seller, body: { title: 'Quick upload', slug: 'quick-upload' } });
  const issued = await send(mk, 'POST', `/assets/${created.body.id}/upload-url`, { as: seller, body: { filename: 'pack.zip' } });
  await mk.clock.advance(59_000);
  const put = await mk.fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: 'PK' });
  assert.equal(put.status, 200);
});

test('clock.advance releases a scheduled listing once it is due, and not before', async () => {
  const mk = createTestMarketplace({ now: '2026-05-01T00:00:00.000Z' });
  const seller = await mk.seller();
  const at = '2026-05-01T06:00:00.000Z';
  const id = await draftWithFile(mk, seller, { title: 'Launch pack', slug: 'launch-pack', scheduled_publish_at: at });
  const submitted = await send(mk, 'POST', `/assets/${id}/submit`, { as: seller });
  assert.equal(submitted.body.status, 'scheduled');
  assert.deepEqual(await mk.clock.advance(6 * 3_600_000 - 1), []);
  assert.equal((await send(mk, 'GET', `/assets/${id}`, { as: seller })).body.status, 'scheduled');
  const released = await mk.clock.advance(1);
  assert.deepEqual(released.map((a) => a.id), [id]);
  assert.equal((await send(mk, 'GET', `/assets/${id}`, { as: seller })).body.status, 'pending');
  assert.deepEqual(mk.events.list({ asset_id: id, type: 'asset.released' }).map((e) => e.at), [at]);
  await mk.moderate.approve(id);
  await mk.events.untilStatus(id, 'published');
});

test('clock.set jumps to a date and releases what became due', async () => {
  const mk = createTestMarketplace({ now: '2026-05-01T00:00:00.000Z' });
  const seller = await mk.seller();
  const id = await draftWithFile(mk, seller, { title: 'Later pack', slug: 'later-pack', scheduled_publish_at: '2026-06-01T00:00:00.000Z' });
  await send(mk, 'POST', `/assets/${id}/submit`, { as: seller });
  const released = await mk.clock.set('2026-07-01T00:00:00.000Z');
  assert.deepEqual(released.map((a) => a.status), ['pending']);
  assert.equal(mk.clock.date().toISOString(), '2026-07-01T00:00:00.000Z');
});

test('a token with an expiry stops working when the clock passes it (401)', async () => {
  const mk = createTestMarketplace({ now: '2026-05-01T00:00:00.000Z' });
  const seller = await mk.seller();
  const { token } = await mk.marketplace.admin.createToken({ accountId: seller.id, name: 'short', expiresAt: new Date('2026-05-01T01:00:00.000Z') });
  const me = () => mk.fetch('/api/v1/me', { headers: { authorization: `Bearer ${token}` } });
  assert.equal((await me()).status, 200);
  await mk.clock.advance(3_600_000);
  assert.equal((await me()).status, 401);
});

test('a session JWT from the token exchange expires with the kit clock (401 after an hour)', async () => {
  const mk = createTestMarketplace({ now: '2026-05-01T00:00:00.000Z' });
  const seller = await mk.seller();
  const exchanged = await send(mk, 'POST', '/auth/session', { as: seller });
  assert.equal(exchanged.status, 200);
  assert.equal(exchanged.body.expires_in, 3600);
  const withJwt = () => mk.fetch('/api/v1/me', { headers: { authorization: `Bearer ${exchanged.body.access_token}` } });
  assert.equal((await withJwt()).status, 200);
  await mk.clock.advance(3_599_000);
  assert.equal((await withJwt()).status, 200, 'still valid a second before');
  await mk.clock.advance(2_000);
  assert.equal((await withJwt()).status, 401);
});
