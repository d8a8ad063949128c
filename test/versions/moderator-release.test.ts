/**
 * A moderator's release time (docs/moderation.md, "Versions"): the admin action approve-version
 * takes an optional `release_at`, in the future, which schedules the version for that time and
 * replaces the seller's; a past or unparsable one is 400 INVALID_INPUT naming `release_at` and
 * changes nothing. Through the admin API on memory, SQLite and PostgreSQL (the time is written in
 * the same compare-and-set as the status: the storage's `updateVersion`).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { as, putSigned, uploadFile, validAsset, type TestServer } from '../fixtures/server.js';
import { needs } from '../fixtures/parts.js';
import { startServerOn, stopStores, storeNames } from '../fixtures/stores.js';

const pg = needs('postgresql');
after(stopStores);

const serviceKey = 'moderator-release-service-key-0123456789ab';
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const hour = 3_600_000;

async function admin(server: TestServer, path: string, body?: unknown) {
  const res = await fetch(`${server.url}/api/admin${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${serviceKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** A published listing (file v1) with a pending version (file v2), the seller's release_at as given. */
async function pendingVersion(server: TestServer, v1: Uint8Array, v2: Uint8Array, releaseAt: string | null) {
  const seller = as(server, server.seller.token);
  const listing = (await seller.post('/assets', validAsset({ title: 'Tower Pack' }))).body;
  await uploadFile(server, server.seller.token, listing.id, v1);
  assert.equal((await seller.post(`/assets/${listing.id}/submit`)).status, 200);
  assert.equal((await admin(server, `/assets/${listing.id}/approve`)).status, 200);
  const made = await seller.post(`/assets/${listing.id}/versions`, { version: '1.1.0', ...(releaseAt ? { release_at: releaseAt } : {}) });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const issued = (await seller.post(`/assets/${listing.id}/versions/${made.body.id}/upload-url`, { filename: 'v2.zip', file_size: v2.byteLength })).body;
  assert.equal((await putSigned(issued.signed_url, v2, 'application/zip')).status, 200);
  assert.equal((await seller.post(`/assets/${listing.id}/versions/${made.body.id}/confirm-file`, { storage_path: issued.storage_path, file_size: v2.byteLength, sha256: sha(v2) })).status, 200);
  assert.equal((await seller.post(`/assets/${listing.id}/versions/${made.body.id}/submit`)).status, 200);
  return { assetId: listing.id as string, versionId: made.body.id as string };
}

for (const store of storeNames) {
  const { test: storeTest } = store === 'postgres' ? pg : { test };
  describe(`a moderator's release time on ${store}`, () => {
    storeTest('refused when past or unparsable (naming release_at, nothing changed); in the future it replaces the seller’s, the listing unchanged until the release job at that time', async () => {
      const server = await startServerOn(store, { serviceKey });
      try {
        const seller = as(server, server.seller.token);
        const v1 = new TextEncoder().encode('PK the live pack');
        const v2 = new TextEncoder().encode('PK the new pack, longer');
        const sellers = new Date(server.clock.now() + 240 * hour).toISOString();
        const { assetId, versionId } = await pendingVersion(server, v1, v2, sellers);
        const version = () => seller.get(`/assets/${assetId}/versions/${versionId}`).then((r) => r.body);

        for (const given of [new Date(server.clock.now() - 60_000).toISOString(), new Date(server.clock.now()).toISOString(), 'tomorrow at nine']) {
          const refused = await admin(server, `/versions/${versionId}/approve`, { release_at: given });
          assert.deepEqual([refused.status, refused.body.code, refused.body.details?.[0]?.path], [400, 'INVALID_INPUT', 'release_at'], `${given}: ${JSON.stringify(refused.body)}`);
          assert.match(refused.body.error, /release_at/);
        }
        assert.deepEqual([(await version()).status, (await version()).release_at], ['pending', sellers], 'a refusal changes nothing');

        // Given with an offset: kept as the same instant in UTC (what the release job compares).
        const inTwoHours = server.clock.now() + 2 * hour;
        const withOffset = new Date(inTwoHours + 2 * hour).toISOString().replace(/\.\d+Z$/, '+02:00');
        const scheduled = await admin(server, `/versions/${versionId}/approve`, { release_at: withOffset });
        assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));
        assert.deepEqual([scheduled.body.status, scheduled.body.review?.decision, scheduled.body.release_at], ['scheduled', 'approved', new Date(inTwoHours).toISOString()]);
        assert.equal((await version()).release_at, new Date(inTwoHours).toISOString(), 'the moderator’s time replaced the seller’s (stored)');
        const waiting = (await seller.get(`/assets/${assetId}`)).body;
        assert.deepEqual([waiting.version, waiting.file.sha256], ['1.0.0', sha(v1)], 'the listing still serves the live file');
        const again = await admin(server, `/versions/${versionId}/approve`, { release_at: new Date(server.clock.now() + 3 * hour).toISOString() });
        assert.deepEqual([again.status, again.body.code], [409, 'INVALID_STATUS'], 'only a pending version is approved');

        server.clock.advance(hour);
        assert.deepEqual((await admin(server, '/moderation/release-due')).body.versions, [], 'not yet its time');
        server.clock.advance(hour);
        const released = await admin(server, '/moderation/release-due');
        assert.deepEqual(released.body.versions.map((v: { id: string; status: string }) => [v.id, v.status]), [[versionId, 'approved']]);
        const live = (await seller.get(`/assets/${assetId}`)).body;
        assert.deepEqual([live.version, live.file.sha256], ['1.1.0', sha(v2)], 'live at the moderator’s time, not the seller’s');
      } finally {
        await server.close();
      }
    });
  });
}
