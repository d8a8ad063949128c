/**
 * What the versions group's tests share (versions.suite.ts, version-swaps.ts): the port of a
 * storage (or the loud refusal of one without it), version records with every field set, a
 * published listing whose events the test can read.
 */
import assert from 'node:assert/strict';
import type { AssetFileRecord, AssetRecord, StoragePort } from '../../core/ports/storage.js';
import { versionsOf, type VersionRecord, type VersionsPort } from '../../core/ports/versions.js';
import { at, uploadRecord } from './sample-records.js';
import { storedAsset } from './storage/fixtures.js';
import { claimAt, eventsOf, subscribed } from './storage/webhooks.js';

/** The storage's versions port; a storage without one fails here, saying how to skip the group. */
export function versionsPortOf(storage: StoragePort): VersionsPort {
  const port = versionsOf(storage);
  assert.ok(
    port,
    'versions is an optional capability (core/ports/versions.ts) that this storage does not offer (its versions routes answer 404): ' +
      'an adapter without it skips the group "versions" with its reason (skip: { versions: "..." })',
  );
  return port;
}

/** A confirmed file at `path`, every field set. */
export const fileAt = (path: string, size = 1234): AssetFileRecord => ({ storage_path: path, file_size: size, content_type: 'application/zip', confirmed_at: at(2), sha256: 'ab'.repeat(32) });

/** A version of `asset`, every field set so that each one's round trip is checked. */
export function versionRecord(asset: Pick<AssetRecord, 'id' | 'owner_id'>, overrides: Partial<VersionRecord> = {}): VersionRecord {
  const id = crypto.randomUUID();
  return {
    id,
    asset_id: asset.id,
    owner_id: asset.owner_id,
    version: `1.${Math.floor(Math.random() * 1e6)}.0`,
    release_notes: '# Fixes\n\n- Schloß ✓ \u2028 the *gate* opens',
    status: 'draft',
    file: fileAt(`assets/${asset.id}/versions/${id}/files/${crypto.randomUUID()}/pack.zip`),
    changes: { title: 'Castle Pack II', description: null, tags: ['castle', 'Gothic'], pricing_type: 'fixed', price: 4.5 },
    gallery: [0, 1].map((position) => {
      const storage_path = `assets/${asset.id}/versions/${id}/images/${crypto.randomUUID()}/shot-${position}.webp`;
      return { id: crypto.randomUUID(), asset_id: asset.id, storage_path, public_url: `https://market.example/api/v1/blobs/${storage_path}`, content_type: 'image/webp', file_size: 2048 + position, is_primary: position === 0, position, created_at: at(1) };
    }),
    review: { decision: 'changes_requested', reason: 'The preview is missing', reviewed_at: at(3) },
    release_at: at(50),
    previous_id: null,
    created_at: at(1),
    updated_at: at(1),
    submitted_at: null,
    decided_at: null,
    revision: 1,
    ...overrides,
  };
}

/** A published listing whose owner has an endpoint subscribed to every event (so the test reads the events written). */
export async function publishedListing(storage: StoragePort) {
  const { account } = await subscribed(storage);
  const asset = await storedAsset(storage, { owner_id: account.id, status: 'published', version: '1.0.0' });
  const live = uploadRecord(asset.id, 'file', { state: 'confirmed', size: 1000 });
  await storage.recordUpload(live);
  const updated = await storage.updateAsset(asset.id, asset.revision, { file: fileAt(live.storage_path, 1000), updated_at: at(1) });
  assert.equal(updated.outcome, 'updated');
  return { account, asset: updated.outcome === 'updated' ? updated.asset : asset };
}

/** The ids of the events written so far (claimed once, at a time after every event of the suite). */
export const writtenEvents = async (storage: StoragePort) => eventsOf(await claimAt(storage, 10_000)).map((event) => event.id);

/** The order the port's lists promise: by a time field, earliest first, then by id in byte order. */
export const earliestBy = (field: 'submitted_at' | 'release_at' | 'updated_at') => (a: VersionRecord, b: VersionRecord): number => {
  const [x, y] = [a[field] ?? '', b[field] ?? ''];
  return x === y ? (a.id < b.id ? -1 : 1) : x < y ? -1 : 1;
};
