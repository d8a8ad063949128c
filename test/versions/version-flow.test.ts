/**
 * Version review (issue 43; docs/moderation.md, "Versions"), through the public surface on memory,
 * SQLite and PostgreSQL: a published listing gets a new version while the live one stays served
 * byte for byte; approval swaps file, version string and fields at once; rollback brings the
 * previous ones back; withdraw, changes requested then resubmitted, and every refusal the contract
 * names (a second open version, a version string used before or not higher, a wrong SHA-256, no
 * file, a listing not published, another seller's listing).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { memoryBlobs } from '../../adapters/memory/index.js';
import { as, putSigned, uploadFile, validAsset, type TestServer } from '../fixtures/server.js';
import { needs } from '../fixtures/parts.js';
import { startServerOn, stopStores, storeNames } from '../fixtures/stores.js';

const pg = needs('postgresql');
after(stopStores);

const bytesOf = (text: string) => new TextEncoder().encode(text);
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const serviceKey = 'version-flow-service-key-0123456789abcdef';

/** What a buyer's download reads: the listing's file from the blob store, byte for byte. */
async function download(blobs: ReturnType<typeof memoryBlobs>, server: TestServer, token: string, id: string): Promise<{ bytes: Uint8Array; version: string; title: string }> {
  const listing = await as(server, token).get(`/assets/${id}`);
  assert.equal(listing.status, 200);
  const blob = await blobs.get(listing.body.file.storage_path);
  assert.ok(blob, `the live file ${listing.body.file.storage_path} is stored`);
  const chunks: Uint8Array[] = [];
  for await (const chunk of blob.body) chunks.push(chunk);
  return { bytes: Buffer.concat(chunks), version: listing.body.version, title: listing.body.title };
}

/** A version's file uploaded by its signed URL and confirmed with its SHA-256. */
async function uploadVersionFile(server: TestServer, token: string, id: string, versionId: string, bytes: Uint8Array, digest = sha(bytes)) {
  const client = as(server, token);
  const issued = await client.post(`/assets/${id}/versions/${versionId}/upload-url`, { filename: 'pack-2.zip', file_size: bytes.byteLength });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  assert.match(issued.body.storage_path, new RegExp(`^assets/${id}/versions/${versionId}/files/`));
  assert.equal((await putSigned(issued.body.signed_url, bytes, 'application/zip')).status, 200);
  return client.post(`/assets/${id}/versions/${versionId}/confirm-file`, { storage_path: issued.body.storage_path, file_size: bytes.byteLength, sha256: digest });
}

for (const store of storeNames) {
  const { test: storeTest } = store === 'postgres' ? pg : { test };
  describe(`versions on ${store}`, () => {
    const blobs = memoryBlobs();
    /** Every event the marketplace committed, as it heard them. */
    const heard: { type: string; data: Record<string, unknown> }[] = [];
    let server: TestServer;
    const v1 = bytesOf('PK version one of the pack');
    const v2 = bytesOf('PK version two of the pack, longer');

    /** A published listing of the seller with file v1, version 1.0.0. */
    async function publishedListing(): Promise<string> {
      const client = as(server, server.seller.token);
      const made = await client.post('/assets', validAsset({ title: 'Castle Pack' }));
      assert.equal(made.status, 201);
      await uploadFile(server, server.seller.token, made.body.id, v1);
      assert.equal((await client.post(`/assets/${made.body.id}/submit`)).status, 200);
      await server.marketplace.moderation.approve(made.body.id);
      return made.body.id;
    }

    storeTest('start the server', async () => {
      server = await startServerOn(store, { blobs, serviceKey, events: { emit: (event) => void heard.push({ type: event.type, data: event.data }) } });
    });

    storeTest('publish, new version, upload, submit: the live file is served unchanged; approve: the new one; rollback: the old one again', async () => {
      const id = await publishedListing();
      const client = as(server, server.seller.token);
      const before = await download(blobs, server, server.seller.token, id);
      assert.deepEqual([before.version, before.title, sha(before.bytes)], ['1.0.0', 'Castle Pack', sha(v1)]);

      const made = await client.post(`/assets/${id}/versions`, { version: '1.1.0', release_notes: '# Fixes\n- the gate', changes: { title: '  Castle Pack Deluxe  ', tags: ['castle', 'Castle'] } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.deepEqual([made.body.status, made.body.version, made.body.changes], ['draft', '1.1.0', { title: 'Castle Pack Deluxe', tags: ['castle'] }]);
      const vid = made.body.id;

      const wrong = await uploadVersionFile(server, server.seller.token, id, vid, v2, sha(v1));
      assert.equal(wrong.status, 422);
      assert.equal(wrong.body.code, 'CHECKSUM_MISMATCH');
      const confirmed = await uploadVersionFile(server, server.seller.token, id, vid, v2);
      assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
      assert.equal(confirmed.body.file.sha256, sha(v2));

      const submitted = await client.post(`/assets/${id}/versions/${vid}/submit`);
      assert.equal(submitted.status, 200);
      assert.equal(submitted.body.status, 'pending');
      const live = await client.get(`/assets/${id}`);
      assert.equal(live.body.status, 'published');
      assert.deepEqual(live.body.pending_version, { id: vid, version: '1.1.0', status: 'pending', review: null });
      const during = await download(blobs, server, server.seller.token, id);
      assert.deepEqual([during.version, during.title, sha(during.bytes)], ['1.0.0', 'Castle Pack', sha(v1)], 'the live listing is unchanged while the version is reviewed');

      const approved = await server.marketplace.moderation.versions.approve(vid);
      assert.equal(approved.status, 'approved');
      const afterApproval = await download(blobs, server, server.seller.token, id);
      assert.deepEqual([afterApproval.version, afterApproval.title, sha(afterApproval.bytes)], ['1.1.0', 'Castle Pack Deluxe', sha(v2)]);
      assert.equal((await client.get(`/assets/${id}`)).body.pending_version, null);
      const history = await client.get(`/assets/${id}/versions`);
      assert.deepEqual(history.body.items.map((v: { version: string; status: string }) => `${v.version} ${v.status}`).sort(), ['1.0.0 superseded', '1.1.0 approved']);

      const rolledBack = await server.marketplace.moderation.versions.rollback(id, 'The gate crashes the editor');
      assert.deepEqual([rolledBack.version, rolledBack.status], ['1.0.0', 'approved']);
      const afterRollback = await download(blobs, server, server.seller.token, id);
      assert.deepEqual([afterRollback.version, afterRollback.title, sha(afterRollback.bytes)], ['1.0.0', 'Castle Pack', sha(v1)]);
      const newest = (await client.get(`/assets/${id}/versions/${vid}`)).body;
      assert.deepEqual([newest.status, newest.review.decision, newest.review.reason], ['superseded', 'rolled_back', 'The gate crashes the editor']);
      // The rolled-back file is kept (superseded), not removed: a later approval could be rolled back to again.
      assert.ok(await blobs.head(newest.file.storage_path));
    });

    storeTest('withdraw; changes requested then resubmitted; rejected: the live listing never changes', async () => {
      const id = await publishedListing();
      const client = as(server, server.seller.token);
      const first = (await client.post(`/assets/${id}/versions`, { version: '2.0.0' })).body;
      const withdrawn = await client.post(`/assets/${id}/versions/${first.id}/withdraw`);
      assert.deepEqual([withdrawn.status, withdrawn.body.status], [200, 'withdrawn']);

      const second = (await client.post(`/assets/${id}/versions`, { version: '2.0.1', release_notes: 'Second try' })).body;
      assert.equal((await uploadVersionFile(server, server.seller.token, id, second.id, v2)).status, 200);
      assert.equal((await client.post(`/assets/${id}/versions/${second.id}/submit`)).status, 200);
      await server.marketplace.moderation.versions.requestChanges(second.id, 'Add the changelog');
      const back = (await client.get(`/assets/${id}`)).body.pending_version;
      assert.deepEqual([back.status, back.review.decision, back.review.reason], ['changes_requested', 'changes_requested', 'Add the changelog']);
      assert.equal((await client.patch(`/assets/${id}/versions/${second.id}`, { release_notes: 'Second try\n\nChangelog added' })).status, 200);
      assert.equal((await client.post(`/assets/${id}/versions/${second.id}/submit`)).body.status, 'pending');
      const submittedFile = (await client.get(`/assets/${id}/versions/${second.id}`)).body.file.storage_path;
      const rejected = await server.marketplace.moderation.versions.reject(second.id, 'The archive is damaged');
      assert.deepEqual([rejected.status, rejected.review?.reason, rejected.file], ['rejected', 'The archive is damaged', null]);
      const live = await download(blobs, server, server.seller.token, id);
      assert.deepEqual([live.version, sha(live.bytes)], ['1.0.0', sha(v1)]);
      // A rejected version's file will never go live: it is removed.
      assert.equal(await blobs.head(submittedFile), null);
    });

    storeTest('refusals: a second open version, a version string used before or not higher, no file, not published, not yours, the seed’s upload-url', async () => {
      const id = await publishedListing();
      const client = as(server, server.seller.token);
      const seed = await client.post(`/assets/${id}/upload-url`, { filename: 'v2.zip' });
      assert.deepEqual([seed.status, seed.body.code], [409, 'LISTING_IS_LIVE']);
      assert.match(seed.body.error, /\/assets\/\{id\}\/versions/);

      for (const [version, code] of [['1.0.0', 'CONFLICT'], ['0.9.0', 'VERSION_NOT_HIGHER'], ['1.0.0-beta.1', 'VERSION_NOT_HIGHER']] as const) {
        const refused = await client.post(`/assets/${id}/versions`, { version });
        assert.deepEqual([refused.status, refused.body.code, refused.body.details?.[0]?.path], [409, code, 'version'], `${version}: ${JSON.stringify(refused.body)}`);
      }
      const bad = await client.post(`/assets/${id}/versions`, { version: 'two words' });
      assert.deepEqual([bad.status, bad.body.code, bad.body.details?.[0]?.path], [400, 'INVALID_INPUT', 'version']);

      const open = (await client.post(`/assets/${id}/versions`, { version: '1.2.0' })).body;
      const second = await client.post(`/assets/${id}/versions`, { version: '1.3.0' });
      assert.deepEqual([second.status, second.body.code], [409, 'CONFLICT']);
      assert.match(second.body.error, new RegExp(open.id));
      const noFile = await client.post(`/assets/${id}/versions/${open.id}/submit`);
      assert.deepEqual([noFile.status, noFile.body.code], [422, 'NO_FILE']);

      const draft = await client.post('/assets', validAsset());
      const notLive = await client.post(`/assets/${draft.body.id}/versions`, { version: '1.0.1' });
      assert.deepEqual([notLive.status, notLive.body.code], [409, 'INVALID_STATUS']);
      const theirs = await as(server, server.other.token).post(`/assets/${id}/versions`, { version: '1.4.0' });
      assert.deepEqual([theirs.status, theirs.body.code], [404, 'NOT_FOUND']);
      const peek = await as(server, server.other.token).get(`/assets/${id}/versions/${open.id}`);
      assert.equal(peek.status, 404);
    });

    storeTest('concurrent approvals of one version commit one swap and one event', async () => {
      const id = await publishedListing();
      const client = as(server, server.seller.token);
      const made = (await client.post(`/assets/${id}/versions`, { version: '3.0.0' })).body;
      assert.equal((await uploadVersionFile(server, server.seller.token, id, made.id, v2)).status, 200);
      assert.equal((await client.post(`/assets/${id}/versions/${made.id}/submit`)).status, 200);
      heard.length = 0;
      const outcomes = await Promise.allSettled([1, 2, 3].map(() => server.marketplace.moderation.versions.approve(made.id)));
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1, JSON.stringify(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))));
      for (const o of outcomes) if (o.status === 'rejected') assert.match(String(o.reason), /INVALID_STATUS|does not allow approval|changed by another request/);
      assert.deepEqual(heard.filter((e) => e.type === 'asset.version_approved').map((e) => [e.data.version_id, e.data.version]), [[made.id, '3.0.0']]);
      const history = (await client.get(`/assets/${id}/versions`)).body.items;
      assert.equal(history.filter((v: { status: string }) => v.status === 'approved').length, 1);
      assert.equal(history.filter((v: { status: string }) => v.status === 'superseded').length, 1, 'one first publication written as superseded, not two');
    });

    storeTest("a version's file counts against the quota beside the live file, and replaces only the version's own earlier file", async () => {
      const quota = await startServerOn(store, { storageQuotaBytes: 100 });
      try {
        const client = as(quota, quota.seller.token);
        const id = (await client.post('/assets', validAsset())).body.id;
        await uploadFile(quota, quota.seller.token, id, new Uint8Array(60).fill(7));
        await client.post(`/assets/${id}/submit`);
        await quota.marketplace.moderation.approve(id);
        const vid = (await client.post(`/assets/${id}/versions`, { version: '1.0.1' })).body.id;
        const over = await client.post(`/assets/${id}/versions/${vid}/upload-url`, { filename: 'next.zip', file_size: 50 });
        assert.deepEqual([over.status, over.body.code], [413, 'STORAGE_QUOTA_EXCEEDED'], 'the live 60 bytes count: 60 + 50 > 100');
        assert.equal((await uploadVersionFile(quota, quota.seller.token, id, vid, new Uint8Array(30).fill(1))).status, 200);
        // A second file for the same version replaces its first (30), not the live one (60): 60 + 35 fits.
        assert.equal((await uploadVersionFile(quota, quota.seller.token, id, vid, new Uint8Array(35).fill(2))).status, 200);
      } finally {
        await quota.close();
      }
    });

    storeTest('a version with release_at: approval schedules it, the listing unchanged; at its time releaseDue makes it live; a scheduled one can be withdrawn', async () => {
      const id = await publishedListing();
      const client = as(server, server.seller.token);
      const hour = 3_600_000;
      const releaseAt = new Date(server.clock.now() + hour).toISOString();
      const made = (await client.post(`/assets/${id}/versions`, { version: '1.5.0', release_at: releaseAt, changes: { title: 'Castle Pack Night' } })).body;
      assert.equal(made.release_at, releaseAt);
      assert.equal((await uploadVersionFile(server, server.seller.token, id, made.id, v2)).status, 200);
      assert.equal((await client.post(`/assets/${id}/versions/${made.id}/submit`)).status, 200);
      heard.length = 0;
      const scheduled = await server.marketplace.moderation.versions.approve(made.id);
      assert.deepEqual([scheduled.status, scheduled.review?.decision], ['scheduled', 'approved']);
      const waiting = await download(blobs, server, server.seller.token, id);
      assert.deepEqual([waiting.version, waiting.title, sha(waiting.bytes)], ['1.0.0', 'Castle Pack', sha(v1)], 'the live listing is unchanged until release_at');
      assert.deepEqual((await client.get(`/assets/${id}`)).body.pending_version.status, 'scheduled');
      const second = await client.post(`/assets/${id}/versions`, { version: '1.6.0' });
      assert.deepEqual([second.status, second.body.code], [409, 'CONFLICT'], 'a scheduled version is the listing’s open one');
      assert.deepEqual((await server.marketplace.maintenance.releaseDue()).versions, [], 'not yet its time');

      server.clock.advance(hour);
      const released = await server.marketplace.maintenance.releaseDue();
      assert.deepEqual(released.versions.map((v) => [v.id, v.status]), [[made.id, 'approved']]);
      const live = await download(blobs, server, server.seller.token, id);
      assert.deepEqual([live.version, live.title, sha(live.bytes)], ['1.5.0', 'Castle Pack Night', sha(v2)]);
      assert.deepEqual(heard.filter((e) => e.type.startsWith('asset.version_')).map((e) => e.type), ['asset.version_scheduled', 'asset.version_approved']);
      assert.deepEqual((await server.marketplace.maintenance.releaseDue()).versions, [], 'released once');

      // Withdrawn while scheduled: it never goes live, and its file goes.
      const later = (await client.post(`/assets/${id}/versions`, { version: '1.7.0', release_at: new Date(server.clock.now() + hour).toISOString() })).body;
      assert.equal((await uploadVersionFile(server, server.seller.token, id, later.id, v1)).status, 200);
      await client.post(`/assets/${id}/versions/${later.id}/submit`);
      const path = (await server.marketplace.moderation.versions.approve(later.id)).file!.storage_path;
      const withdrawn = await client.post(`/assets/${id}/versions/${later.id}/withdraw`);
      assert.deepEqual([withdrawn.status, withdrawn.body.status], [200, 'withdrawn']);
      assert.equal(await blobs.head(path), null);
      server.clock.advance(2 * hour);
      assert.deepEqual((await server.marketplace.maintenance.releaseDue()).versions, []);
      assert.equal((await client.get(`/assets/${id}`)).body.version, '1.5.0');
    });

    storeTest('release_at needs the plan feature scheduled_publishing, as a listing’s schedule does', async () => {
      const plain = await server.account({ plan_features: [] });
      const client = as(server, plain.token);
      const id = (await client.post('/assets', validAsset())).body.id;
      await uploadFile(server, plain.token, id, v1);
      await client.post(`/assets/${id}/submit`);
      await server.marketplace.moderation.approve(id);
      const releaseAt = new Date(server.clock.now() + 3_600_000).toISOString();
      const refused = await client.post(`/assets/${id}/versions`, { version: '1.1.0', release_at: releaseAt });
      assert.deepEqual([refused.status, refused.body.code], [409, 'PRECONDITION_FAILED']);
      const vid = (await client.post(`/assets/${id}/versions`, { version: '1.1.0' })).body.id;
      assert.equal((await client.patch(`/assets/${id}/versions/${vid}`, { release_at: releaseAt })).body.code, 'PRECONDITION_FAILED');
      const cleared = await client.patch(`/assets/${id}/versions/${vid}`, { release_at: null });
      assert.deepEqual([cleared.status, cleared.body.release_at], [200, null], 'clearing it needs no feature');
    });

    storeTest('superseded files are kept for the retention, then the sweep removes them (out of the quota), but never the rollback target', async () => {
      const own = memoryBlobs();
      const day = 24 * 3600 * 1000;
      const kept = await startServerOn(store, { blobs: own, storageQuotaBytes: 100, supersededRetentionSeconds: 30 * 24 * 3600 });
      try {
        const seller = as(kept, kept.seller.token);
        const id = (await seller.post('/assets', validAsset())).body.id;
        await uploadFile(kept, kept.seller.token, id, new Uint8Array(30).fill(1));
        await seller.post(`/assets/${id}/submit`);
        await kept.marketplace.moderation.approve(id);
        const release = async (version: string, fill: number) => {
          const vid = (await seller.post(`/assets/${id}/versions`, { version })).body.id;
          assert.equal((await uploadVersionFile(kept, kept.seller.token, id, vid, new Uint8Array(30).fill(fill))).status, 200);
          assert.equal((await seller.post(`/assets/${id}/versions/${vid}/submit`)).status, 200);
          await kept.marketplace.moderation.versions.approve(vid);
          return vid;
        };
        await release('1.1.0', 2);
        kept.clock.advance(day);
        await release('1.2.0', 3);
        const files = async () => Object.fromEntries((await seller.get(`/assets/${id}/versions`)).body.items.map((v: { version: string; file: { storage_path: string } | null }) => [v.version, v.file?.storage_path ?? null]));
        const next = (await seller.post(`/assets/${id}/versions`, { version: '1.3.0' })).body.id;
        const before = await files();
        const over = await seller.post(`/assets/${id}/versions/${next}/upload-url`, { filename: 'next.zip', file_size: 20 });
        assert.deepEqual([over.status, over.body.code], [413, 'STORAGE_QUOTA_EXCEEDED'], 'three files of 30 bytes kept: 90 + 20 > 100');

        kept.clock.advance(29 * day);
        assert.equal((await kept.marketplace.maintenance.sweepUploads()).superseded, 0, 'within the retention nothing goes');
        kept.clock.advance(2 * day);
        assert.equal((await kept.marketplace.maintenance.sweepUploads()).superseded, 1, '1.0.0 goes; 1.1.0, what 1.2.0 rolls back to, stays');
        const after = await files();
        assert.deepEqual(after, { ...before, '1.0.0': null });
        assert.equal(await own.head(before['1.0.0']), null, 'its bytes are gone');
        assert.ok(await own.head(before['1.1.0']), 'the rollback target keeps its file');
        const fits = await seller.post(`/assets/${id}/versions/${next}/upload-url`, { filename: 'next.zip', file_size: 20 });
        assert.equal(fits.status, 200, 'the removed file left the quota: 60 + 20 fits');

        // A rollback to 1.1.0 still works; one more step back, to the removed 1.0.0, is refused and changes nothing.
        assert.equal((await kept.marketplace.moderation.versions.rollback(id)).version, '1.1.0');
        await assert.rejects(kept.marketplace.moderation.versions.rollback(id), /INVALID_STATUS|no file any more/);
        assert.equal((await seller.get(`/assets/${id}`)).body.version, '1.1.0');
      } finally {
        await kept.close();
      }
    });

    storeTest('stop the server', async () => {
      await server.close();
    });
  });
}
