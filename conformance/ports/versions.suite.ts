/**
 * The versions port (core/ports/versions.ts), an optional capability of a storage: the group
 * `versions` of the storage suite (storage.suite.ts). Creation with at most one open version per
 * listing, reads, revision-checked updates, the swap of a listing's live version in one change (and
 * nothing when any revision moved), the review queue, and events written with a change or not at
 * all. A storage without the capability fails every test of the group, saying so, until the group
 * is skipped with its reason.
 */
import assert from 'node:assert/strict';
import type { StoragePort } from '../../core/ports/storage.js';
import type { VersionRecord } from '../../core/ports/versions.js';
import { at, outboxEvent, uploadRecord } from './sample-records.js';
import type { StorageTests, WithPeer } from './storage/fixtures.js';
import { countOf } from './suite.js';
import { earliestBy, publishedListing, versionRecord, versionsPortOf, writtenEvents } from './version-fixtures.js';
import { swapTests } from './version-swaps.js';

/**
 * Ids that sort differently by bytes (`1` < `B` < `_`, as memory and a text column of byte order
 * sort them) and by a locale's collation (`_` < `1` < `B`): for records that tie on their time.
 */
const tieIds = (prefix = crypto.randomUUID()) => (i: number) => `${prefix}${['_a', '1', 'B'][i % 3]}`;

/** The versions port's tests (group `versions`), each on a fresh store. */
export function versionTests<S extends StoragePort>(withPeer: WithPeer<S>): StorageTests<S> {
  return {
    'create: a draft stored field for field; a second open version (draft, pending or changes_requested) refused with the open one; once closed, the next is created': async (storage) => {
      const port = versionsPortOf(storage);
      const { account, asset } = await publishedListing(storage);
      const first = versionRecord(asset);
      const created = outboxEvent(account.id, asset.id, 'asset.version_created', 2);
      assert.deepStrictEqual(await port.createVersion(first, [created]), { outcome: 'created', version: first });
      assert.deepStrictEqual(await port.getVersion(first.id), first, 'every field as written');
      let revision = first.revision;
      for (const status of ['draft', 'pending', 'changes_requested'] as const) {
        const moved = await port.updateVersion(first.id, revision, { status, updated_at: at(4) });
        assert.equal(moved.outcome, 'updated');
        revision++;
        const second = await port.createVersion(versionRecord(asset), [outboxEvent(account.id, asset.id, 'asset.version_created', 3)]);
        assert.equal(second.outcome, 'open_exists', `refused while the open one is ${status}`);
        assert.deepStrictEqual(second.outcome === 'open_exists' && second.open, { ...first, status, updated_at: at(4), revision });
      }
      assert.equal((await port.updateVersion(first.id, revision, { status: 'withdrawn', updated_at: at(5) })).outcome, 'updated');
      const next = versionRecord(asset, { created_at: at(6) });
      assert.equal((await port.createVersion(next)).outcome, 'created', 'a withdrawn version is not open');
      assert.deepStrictEqual(await writtenEvents(storage), [created.id], 'only the created version’s event');
    },
    'create: of concurrent creations for one listing, on this store and its peer, exactly one is created; the others answer it as the open one': async (storage) => {
      const { asset } = await publishedListing(storage);
      await withPeer(storage, async (pick) => {
        const tries = Array.from({ length: 8 }, () => versionRecord(asset));
        const { results, count } = await countOf(
          tries.map((version, i) => versionsPortOf(pick(i)).createVersion(version)),
          (r) => r.outcome === 'created',
        );
        assert.equal(count, 1);
        const winner = results.find((r) => r.outcome === 'created');
        for (const r of results) if (r.outcome !== 'created') assert.equal(r.outcome === 'open_exists' && r.open.id, winner?.outcome === 'created' && winner.version.id);
      });
      assert.equal((await versionsPortOf(storage).listVersions(asset.id)).length, 1);
    },
    'create: for a listing that is gone, missing, and its events are not written': async (storage) => {
      const port = versionsPortOf(storage);
      const { account, asset } = await publishedListing(storage);
      assert.equal((await storage.deleteAsset(asset.id, asset.revision)).outcome, 'deleted');
      const version = versionRecord(asset);
      assert.deepStrictEqual(await port.createVersion(version, [outboxEvent(account.id, asset.id, 'asset.version_created')]), { outcome: 'missing' });
      assert.equal(await port.getVersion(version.id), null);
      assert.deepStrictEqual(await writtenEvents(storage), []);
    },
    'get and list: an unknown id is null; a listing’s versions newest first (created_at, then id, descending, in byte order), no other listing’s': async (storage) => {
      const tied = tieIds();
      const port = versionsPortOf(storage);
      const { asset } = await publishedListing(storage);
      const { asset: other } = await publishedListing(storage);
      assert.equal(await port.getVersion(crypto.randomUUID()), null);
      assert.deepStrictEqual(await port.listVersions(asset.id), []);
      // Each created, then closed, so that the next can be; three share a creation time, and their ids
      // (chosen by the ids port, whatever it makes) are in byte order, not a locale's.
      const made = [at(10), at(30), at(20), at(20), at(20)].map((created_at, i) => versionRecord(asset, { created_at, ...(i > 1 && { id: tied(i) }) }));
      for (const version of made) {
        assert.equal((await port.createVersion(version)).outcome, 'created');
        assert.equal((await port.updateVersion(version.id, 1, { status: 'withdrawn', updated_at: at(40) })).outcome, 'updated');
      }
      assert.equal((await port.createVersion(versionRecord(other))).outcome, 'created');
      const newestFirst = [...made].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));
      const listed = await port.listVersions(asset.id);
      assert.deepStrictEqual(listed.map((v) => v.id), newestFirst.map((v) => v.id));
      assert.deepStrictEqual(listed[0], { ...newestFirst[0]!, status: 'withdrawn', updated_at: at(40), revision: 2 });
    },
    'update: applied at the revision, which then moves; a stale revision or an unknown version changes nothing and writes no event': async (storage) => {
      const port = versionsPortOf(storage);
      const { account, asset } = await publishedListing(storage);
      const version = versionRecord(asset, { review: null, release_at: null });
      await port.createVersion(version);
      const submitted = outboxEvent(account.id, asset.id, 'asset.version_submitted', 5);
      const changes = { status: 'pending' as const, version: '2.0.0', changes: { tags: ['new'] }, file: null, submitted_at: at(5), updated_at: at(5) };
      const updated = await port.updateVersion(version.id, 1, changes, [submitted]);
      const expected: VersionRecord = { ...version, ...changes, revision: 2 };
      assert.deepStrictEqual(updated, { outcome: 'updated', version: expected });
      assert.deepStrictEqual(await port.getVersion(version.id), expected);
      const refused = [outboxEvent(account.id, asset.id, 'asset.version_withdrawn', 6)];
      assert.deepStrictEqual(await port.updateVersion(version.id, 1, { status: 'withdrawn', updated_at: at(6) }, refused), { outcome: 'stale' });
      assert.deepStrictEqual(await port.updateVersion(crypto.randomUUID(), 1, { status: 'withdrawn', updated_at: at(6) }, refused), { outcome: 'missing' });
      assert.deepStrictEqual(await port.getVersion(version.id), expected, 'unchanged');
      assert.deepStrictEqual(await writtenEvents(storage), [submitted.id]);
    },
    ...swapTests(withPeer),
    'garbage: an expired upload a version points at (its confirm under way) is not garbage; once the version lets go of it, it is': async (storage) => {
      const port = versionsPortOf(storage);
      const { asset } = await publishedListing(storage);
      const version = versionRecord(asset);
      // The version's file is written before its upload is marked confirmed: a crash between the two leaves it 'uploaded'.
      const upload = uploadRecord(asset.id, 'file', { storage_path: version.file!.storage_path, state: 'uploaded', size: 1234, expires_at: at(10) });
      await storage.recordUpload(upload);
      assert.equal((await port.createVersion(version)).outcome, 'created');
      assert.ok(!(await storage.listUploadGarbage(at(100), 100)).includes(upload.storage_path), 'the version points at it');
      assert.equal((await port.updateVersion(version.id, 1, { file: null, updated_at: at(11) })).outcome, 'updated');
      assert.ok((await storage.listUploadGarbage(at(100), 100)).includes(upload.storage_path), 'nothing points at it any more');
    },
    'garbage: an expired upload of a version’s gallery image (its confirm under way) is not garbage; once the gallery lets go of it, it is': async (storage) => {
      const port = versionsPortOf(storage);
      const { asset } = await publishedListing(storage);
      const version = versionRecord(asset);
      const [first, second] = version.gallery!;
      const uploads = [first!, second!].map((image) => uploadRecord(asset.id, 'image', { storage_path: image.storage_path, public_url: image.public_url, state: 'uploaded', size: image.file_size, expires_at: at(10) }));
      for (const upload of uploads) await storage.recordUpload(upload);
      assert.equal((await port.createVersion(version)).outcome, 'created');
      const garbage = async () => (await storage.listUploadGarbage(at(100), 100)).filter((path) => uploads.some((u) => u.storage_path === path));
      assert.deepStrictEqual(await garbage(), [], 'the gallery points at both');
      assert.equal((await port.updateVersion(version.id, 1, { gallery: [second!], updated_at: at(11) })).outcome, 'updated');
      assert.deepStrictEqual(await garbage(), [first!.storage_path], 'the one the gallery let go of');
    },
    'delete: deleting the listing removes its versions': async (storage) => {
      const port = versionsPortOf(storage);
      const { asset } = await publishedListing(storage);
      const { asset: other } = await publishedListing(storage);
      const version = versionRecord(asset, { status: 'pending', submitted_at: at(5) });
      const kept = versionRecord(other, { status: 'pending', submitted_at: at(6) });
      for (const v of [version, kept]) assert.equal((await port.createVersion(v)).outcome, 'created');
      assert.equal((await storage.deleteAsset(asset.id, asset.revision)).outcome, 'deleted');
      assert.equal(await port.getVersion(version.id), null);
      assert.deepStrictEqual(await port.listVersions(asset.id), []);
      assert.deepStrictEqual((await port.listVersionsInStatus('pending', 10)).items.map((v) => v.id), [kept.id]);
      assert.deepStrictEqual(await port.updateVersion(version.id, 1, { status: 'withdrawn', updated_at: at(7) }), { outcome: 'missing' });
    },
    'review queue: the versions in a status of every listing, oldest submission first (then id, in byte order), at most `limit`, after a position, with their total': async (storage) => {
      const tied = tieIds();
      const port = versionsPortOf(storage);
      const pending: VersionRecord[] = [];
      for (const [i, submitted_at] of [at(30), at(10), at(20), at(20), at(20)].entries()) {
        const { asset } = await publishedListing(storage);
        const version = versionRecord(asset, { status: 'pending', submitted_at, ...(i > 1 && { id: tied(i) }) });
        pending.push(version);
        assert.equal((await port.createVersion(version)).outcome, 'created');
      }
      const { asset } = await publishedListing(storage);
      const draft = versionRecord(asset);
      await port.createVersion(draft);
      const oldestFirst = [...pending].sort(earliestBy('submitted_at'));
      assert.deepStrictEqual(await port.listVersionsInStatus('pending', 10), { items: oldestFirst, total: 5 });
      const first = await port.listVersionsInStatus('pending', 2);
      assert.deepStrictEqual({ ids: first.items.map((v) => v.id), total: first.total }, { ids: oldestFirst.slice(0, 2).map((v) => v.id), total: 5 });
      // After the second (a tie on submitted_at with the next two): the rest, the tie broken by id.
      const second = oldestFirst[1]!;
      const rest = await port.listVersionsInStatus('pending', 10, { key: second.submitted_at!, id: second.id });
      assert.deepStrictEqual({ ids: rest.items.map((v) => v.id), total: rest.total }, { ids: oldestFirst.slice(2).map((v) => v.id), total: 5 });
      const last = oldestFirst.at(-1)!;
      assert.deepStrictEqual(await port.listVersionsInStatus('pending', 10, { key: last.submitted_at!, id: last.id }), { items: [], total: 5 });
      assert.deepStrictEqual((await port.listVersionsInStatus('draft', 10)).items.map((v) => v.id), [draft.id]);
      assert.deepStrictEqual(await port.listVersionsInStatus('approved', 10), { items: [], total: 0 });
    },
    'release: the scheduled versions whose release_at has come, earliest first (then id), at most `limit`': async (storage) => {
      const tied = tieIds();
      const port = versionsPortOf(storage);
      const due: VersionRecord[] = [];
      for (const [i, release_at] of [at(30), at(10), at(20), at(20)].entries()) {
        const { asset } = await publishedListing(storage);
        const version = versionRecord(asset, { status: 'scheduled', release_at, ...(i > 1 && { id: tied(i) }) });
        due.push(version);
        assert.equal((await port.createVersion(version)).outcome, 'created');
      }
      const { asset } = await publishedListing(storage);
      const later = versionRecord(asset, { status: 'scheduled', release_at: at(40) });
      const { asset: other } = await publishedListing(storage);
      const pending = versionRecord(other, { status: 'pending', release_at: at(5) });
      for (const v of [later, pending]) assert.equal((await port.createVersion(v)).outcome, 'created');
      const earliest = [...due].sort(earliestBy('release_at'));
      assert.deepStrictEqual(await port.listDueVersions(at(30), 10), earliest, 'release_at at or before now');
      assert.deepStrictEqual((await port.listDueVersions(at(30), 2)).map((v) => v.id), earliest.slice(0, 2).map((v) => v.id));
      assert.deepStrictEqual((await port.listDueVersions(at(40), 10)).map((v) => v.id), [...earliest, later].map((v) => v.id));
      assert.deepStrictEqual(await port.listDueVersions(at(9), 10), []);
      // A scheduled version is the listing's open one: a second cannot be made beside it.
      assert.equal((await port.createVersion(versionRecord(asset))).outcome, 'open_exists');
      // Scheduled in one write at its revision, the status and a new release_at together (a moderator's
      // time, core/operations/version-moderation.ts): due at that time, not at its own; a stale write changes neither.
      assert.equal((await port.updateVersion(pending.id, pending.revision, { status: 'scheduled', release_at: at(35), updated_at: at(6) })).outcome, 'updated');
      assert.deepStrictEqual(await port.updateVersion(pending.id, pending.revision, { status: 'scheduled', release_at: at(1), updated_at: at(7) }), { outcome: 'stale' });
      assert.deepStrictEqual((await port.listDueVersions(at(34), 10)).map((v) => v.id), earliest.map((v) => v.id), 'not at its earlier release_at');
      assert.deepStrictEqual((await port.listDueVersions(at(35), 10)).map((v) => v.id), [...earliest, pending].map((v) => v.id));
    },
    'retention: the superseded versions holding a file, superseded before a time, oldest first (then id), at most `limit`': async (storage) => {
      const tied = tieIds();
      const port = versionsPortOf(storage);
      const expected: VersionRecord[] = [];
      for (const [i, updated_at] of [at(30), at(10), at(20), at(20)].entries()) {
        const { asset } = await publishedListing(storage);
        const version = versionRecord(asset, { status: 'superseded', updated_at, ...(i > 1 && { id: tied(i) }) });
        expected.push(version);
        assert.equal((await port.createVersion(version)).outcome, 'created');
      }
      const { asset } = await publishedListing(storage);
      const later = versionRecord(asset, { status: 'superseded', updated_at: at(40) });
      const { asset: other } = await publishedListing(storage);
      const fileless = versionRecord(other, { status: 'superseded', updated_at: at(5), file: null });
      const { asset: third } = await publishedListing(storage);
      const live = versionRecord(third, { status: 'approved', updated_at: at(5) });
      for (const v of [later, fileless, live]) assert.equal((await port.createVersion(v)).outcome, 'created');
      const oldestFirst = [...expected].sort(earliestBy('updated_at'));
      assert.deepStrictEqual(await port.listSupersededFiles(at(40), 10), oldestFirst);
      assert.deepStrictEqual((await port.listSupersededFiles(at(40), 2)).map((v) => v.id), oldestFirst.slice(0, 2).map((v) => v.id));
      assert.deepStrictEqual((await port.listSupersededFiles(at(41), 10)).map((v) => v.id), [...oldestFirst, later].map((v) => v.id));
      assert.deepStrictEqual(await port.listSupersededFiles(at(10), 10), []);
    },
  };
}
