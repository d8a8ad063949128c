/**
 * Versions of published listings on SQLite and PostgreSQL (core/ports/versions.ts): each method is
 * one statement or one transaction, the events written on it (the outbox). At most one open version
 * per listing is the partial unique index's to hold (migration 20), so concurrent creations cannot
 * both succeed; the swap locks the listing's row first, so concurrent swaps run one after another
 * and all but one find a revision moved.
 */
import { copyRecord, type AssetRecord, type OutboxEvent } from '../../core/ports/storage.js';
import { sameIds, type VersionRecord, type VersionSwap, type VersionsPort } from '../../core/ports/versions.js';
import { applyChanges } from '../../core/ports/storage.js';
import { recordReader } from './rows.js';
import type { SqlDatabase, SqlDialect, SqlSession } from './session.js';
import { insertInto, updateOf } from './statements.js';
import { assets, assetVersions, encode, images, updatedColumns } from './tables.js';

// The open statuses, as the partial unique index of migration 21 holds them.
const openStatuses = `status IN ('draft', 'pending', 'changes_requested', 'scheduled')`;

export const versionStatements = ({ lock }: SqlDialect) => ({
  insertVersion: insertInto(assetVersions),
  getVersion: 'SELECT * FROM asset_versions WHERE id = ?',
  getVersionForUpdate: `SELECT * FROM asset_versions WHERE id = ?${lock.update}`,
  openVersionOf: `SELECT * FROM asset_versions WHERE asset_id = ? AND ${openStatuses}`,
  listVersions: 'SELECT * FROM asset_versions WHERE asset_id = ? ORDER BY created_at DESC, id DESC',
  listVersionsInStatus: 'SELECT * FROM asset_versions WHERE status = ? ORDER BY submitted_at ASC, id ASC LIMIT ?',
  listVersionsInStatusAfter: 'SELECT * FROM asset_versions WHERE status = ? AND (submitted_at, id) > (?, ?) ORDER BY submitted_at ASC, id ASC LIMIT ?',
  countVersionsInStatus: 'SELECT COUNT(*) AS total FROM asset_versions WHERE status = ?',
  listSupersededFiles: `SELECT * FROM asset_versions WHERE status = 'superseded' AND file IS NOT NULL AND updated_at < ? ORDER BY updated_at ASC, id ASC LIMIT ?`,
  listDueVersions: `SELECT * FROM asset_versions WHERE status = 'scheduled' AND release_at <= ? ORDER BY release_at ASC, id ASC LIMIT ?`,
  updateVersion: updateOf(assetVersions, ' AND revision = ?'),
  versionAssetForUpdate: `SELECT * FROM assets WHERE id = ?${lock.update}`,
  versionAssetExists: 'SELECT 1 AS found FROM assets WHERE id = ?',
  // A new gallery replaces the listing's images in the swap's transaction.
  swappedImageIds: 'SELECT id FROM images WHERE asset_id = ?',
  deleteSwappedImages: 'DELETE FROM images WHERE asset_id = ?',
  insertSwappedImage: insertInto(images),
  swapAsset: updateOf(assets, ' AND revision = ?'),
});

type Statements = ReturnType<typeof versionStatements>;

/** Rolls a swap's transaction back when a revision moved under it. */
class Stale extends Error {}

/** Writes one version's change at its revision on `tx`; false when it moved (or the version is gone). */
async function writeVersion(tx: SqlSession, db: SqlDatabase, s: Statements, id: string, expected: number, changes: Partial<VersionRecord>): Promise<VersionRecord | null> {
  const current = await recordReader(tx).one(assetVersions, s.getVersionForUpdate, id);
  if (!current || current.revision !== expected) return null;
  const next: VersionRecord = { ...applyChanges(current, changes), revision: current.revision + 1 };
  const changed = await tx.run(s.updateVersion, [...encode(db.dialect, assetVersions, next, updatedColumns(assetVersions)), expected]);
  return changed === 1 ? next : null;
}

/** The swap in one transaction: the listing, the incoming version, the outgoing one, the events; Stale rolls it all back. */
async function swap(db: SqlDatabase, s: Statements, writeEvents: (tx: SqlSession, events: readonly OutboxEvent[]) => Promise<void>, change: VersionSwap) {
  return db.transaction(async (tx) => {
    const asset = await recordReader(tx).one(assets, s.versionAssetForUpdate, change.assetId);
    // Gone, or a version of another listing: missing, as the memory store answers, before anything is written.
    const going = asset && (await recordReader(tx).one(assetVersions, s.getVersionForUpdate, change.incoming.id));
    if (!asset || !going || going.asset_id !== asset.id) return { outcome: 'missing' } as const;
    if (asset.revision !== change.expectedAssetRevision) throw new Stale();
    const updated: AssetRecord = { ...applyChanges(asset, change.assetChanges), revision: asset.revision + 1 };
    // The listing's file changes without becoming garbage: the outgoing version keeps it for a rollback.
    if ((await tx.run(s.swapAsset, [...encode(db.dialect, assets, updated, updatedColumns(assets)), asset.revision])) !== 1) throw new Stale();
    const incoming = await writeVersion(tx, db, s, change.incoming.id, change.incoming.expectedRevision, change.incoming.changes);
    if (!incoming) throw new Stale();
    const { outgoing } = change;
    if (outgoing && 'id' in outgoing && !(await writeVersion(tx, db, s, outgoing.id, outgoing.expectedRevision, outgoing.changes))) throw new Stale();
    if (outgoing && 'record' in outgoing) await tx.run(s.insertVersion, encode(db.dialect, assetVersions, outgoing.record));
    if (change.images) {
      // The listing's row is locked: an image added concurrently (addImage locks it too) is either in this read or after the commit.
      const current = (await tx.all(s.swappedImageIds, [asset.id])).map((row) => String(row.id));
      if (!sameIds(current, change.images.replacing)) throw new Stale();
      await tx.run(s.deleteSwappedImages, [asset.id]);
      for (const image of change.images.gallery) await tx.run(s.insertSwappedImage, encode(db.dialect, images, image));
    }
    await writeEvents(tx, change.events);
    return { outcome: 'swapped', asset: updated, incoming } as const;
  }).catch((error: unknown) => {
    if (error instanceof Stale || db.dialect.isUniqueViolation(error)) return { outcome: 'stale' } as const;
    throw error;
  });
}

/** The versions port over `db`, its events written by `writeEvents` on each change's transaction. */
export function versionMethods(db: SqlDatabase, writeEvents: (tx: SqlSession, events: readonly OutboxEvent[]) => Promise<void>): VersionsPort {
  const s = versionStatements(db.dialect);
  const read = recordReader(db);
  return {
    async createVersion(version, events) {
      try {
        return await db.transaction(async (tx) => {
          const reader = recordReader(tx);
          if (!(await reader.one(assets, s.versionAssetForUpdate, version.asset_id))) return { outcome: 'missing' } as const;
          const open = await reader.one(assetVersions, s.openVersionOf, version.asset_id);
          if (open) return { outcome: 'open_exists', open } as const;
          await tx.run(s.insertVersion, encode(db.dialect, assetVersions, version));
          await writeEvents(tx, events ?? []);
          return { outcome: 'created', version: copyRecord(version) } as const;
        });
      } catch (error) {
        // A concurrent creation took the open slot (the partial unique index) between the read and the insert.
        if (!db.dialect.isUniqueViolation(error)) throw error;
        const open = await read.one(assetVersions, s.openVersionOf, version.asset_id);
        if (open) return { outcome: 'open_exists', open };
        throw error;
      }
    },
    getVersion: (id) => read.one(assetVersions, s.getVersion, id),
    listVersions: (assetId) => read.all(assetVersions, s.listVersions, assetId),
    async updateVersion(id, expectedRevision, changes, events) {
      return db.transaction(async (tx) => {
        const current = await recordReader(tx).one(assetVersions, s.getVersionForUpdate, id);
        if (!current) return { outcome: 'missing' } as const;
        if (current.revision !== expectedRevision) return { outcome: 'stale' } as const;
        const version = await writeVersion(tx, db, s, id, expectedRevision, changes);
        if (!version) return { outcome: 'stale' } as const;
        await writeEvents(tx, events ?? []);
        return { outcome: 'updated', version } as const;
      });
    },
    swapVersion: (change) => swap(db, s, writeEvents, change),
    listVersionsInStatus: (status, limit, after) =>
      read.page(assetVersions, after ? s.listVersionsInStatusAfter : s.listVersionsInStatus, after ? [status, after.key, after.id, limit] : [status, limit], s.countVersionsInStatus, [status]),
    listSupersededFiles: (before, limit) => read.all(assetVersions, s.listSupersededFiles, before, limit),
    listDueVersions: (now, limit) => read.all(assetVersions, s.listDueVersions, now, limit),
  };
}
