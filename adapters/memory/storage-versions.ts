import type { AssetRecord } from '../../core/ports/storage.js';
import { sameIds, type VersionRecord, type VersionsPort } from '../../core/ports/versions.js';
import { isOpenVersion } from '../../core/domain/version-states.js';
import type { ListIndexes } from './list-indexes.js';
import { copy, newestFirst, type MemoryStorageState } from './storage-state.js';
import { assertNewEvents, writeEvents } from './storage-webhooks.js';

/** Versions ordered by a time field, earliest first, then by id in byte order (as SQL's COLLATE "C"); a missing time first. */
const earliestBy = (field: 'submitted_at' | 'release_at' | 'updated_at') => (a: VersionRecord, b: VersionRecord): number => {
  const [x, y] = [a[field] ?? '', b[field] ?? ''];
  return x === y ? (a.id < b.id ? -1 : 1) : x < y ? -1 : 1;
};

/**
 * The memory store's versions of published listings (core/ports/versions.ts). Every method runs to
 * completion without awaiting, so each is atomic, the swap included: the listing, both versions and
 * the events change together or not at all.
 */
export function versionMethods(s: MemoryStorageState, indexes: ListIndexes): VersionsPort {
  const of = (assetId: string) => [...s.versions.values()].filter((version) => version.asset_id === assetId);
  return {
    async createVersion(version, events) {
      assertNewEvents(s, events);
      if (!s.assets.has(version.asset_id)) return { outcome: 'missing' };
      const open = of(version.asset_id).find((other) => isOpenVersion(other.status));
      if (open) return { outcome: 'open_exists', open: copy(open) };
      s.versions.set(version.id, copy(version));
      writeEvents(s, events);
      return { outcome: 'created', version: copy(version) };
    },
    async getVersion(id) {
      const version = s.versions.get(id);
      return version ? copy(version) : null;
    },
    async listVersions(assetId) {
      return of(assetId).sort(newestFirst).map(copy);
    },
    async updateVersion(id, expectedRevision, changes, events) {
      assertNewEvents(s, events);
      const version = s.versions.get(id);
      if (!version || !s.assets.has(version.asset_id)) return { outcome: 'missing' };
      if (version.revision !== expectedRevision) return { outcome: 'stale' };
      const updated: VersionRecord = { ...version, ...copy(changes), revision: version.revision + 1 };
      s.versions.set(id, updated);
      writeEvents(s, events);
      return { outcome: 'updated', version: copy(updated) };
    },
    async swapVersion(swap) {
      assertNewEvents(s, swap.events);
      const asset = s.assets.get(swap.assetId);
      const incoming = s.versions.get(swap.incoming.id);
      if (!asset || !incoming || incoming.asset_id !== asset.id) return { outcome: 'missing' };
      if (asset.revision !== swap.expectedAssetRevision || incoming.revision !== swap.incoming.expectedRevision) return { outcome: 'stale' };
      const outgoing = swap.outgoing && 'id' in swap.outgoing ? s.versions.get(swap.outgoing.id) : undefined;
      if (swap.outgoing && 'id' in swap.outgoing && outgoing?.revision !== swap.outgoing.expectedRevision) return { outcome: 'stale' };
      if (swap.outgoing && 'record' in swap.outgoing && s.versions.has(swap.outgoing.record.id)) return { outcome: 'stale' };
      const shown = [...s.images.values()].filter((image) => image.asset_id === asset.id);
      if (swap.images && !sameIds(shown.map((image) => image.id), swap.images.replacing)) return { outcome: 'stale' };
      // The listing's file changes without becoming garbage: the outgoing version keeps it for a rollback.
      const updated: AssetRecord = { ...asset, ...copy(swap.assetChanges), revision: asset.revision + 1 };
      s.assets.set(asset.id, updated);
      indexes.assetRemoved(asset);
      indexes.assetAdded(updated);
      const live: VersionRecord = { ...incoming, ...copy(swap.incoming.changes), revision: incoming.revision + 1 };
      s.versions.set(live.id, live);
      if (outgoing && swap.outgoing && 'id' in swap.outgoing) s.versions.set(outgoing.id, { ...outgoing, ...copy(swap.outgoing.changes), revision: outgoing.revision + 1 });
      if (swap.outgoing && 'record' in swap.outgoing) s.versions.set(swap.outgoing.record.id, copy(swap.outgoing.record));
      if (swap.images) {
        for (const image of shown) s.images.delete(image.id);
        for (const image of swap.images.gallery) s.images.set(image.id, copy(image));
      }
      writeEvents(s, swap.events);
      return { outcome: 'swapped', asset: copy(updated), incoming: copy(live) };
    },
    async listVersionsInStatus(status, limit, after) {
      const all = [...s.versions.values()].filter((version) => version.status === status && s.assets.has(version.asset_id));
      const later = (version: VersionRecord) => !after || (version.submitted_at ?? '') > after.key || ((version.submitted_at ?? '') === after.key && version.id > after.id);
      return { items: all.filter(later).sort(earliestBy('submitted_at')).slice(0, limit).map(copy), total: all.length };
    },
    async listDueVersions(now, limit) {
      return [...s.versions.values()]
        .filter((version) => version.status === 'scheduled' && version.release_at !== null && version.release_at <= now && s.assets.has(version.asset_id))
        .sort(earliestBy('release_at'))
        .slice(0, limit)
        .map(copy);
    },
    async listSupersededFiles(before, limit) {
      return [...s.versions.values()]
        .filter((version) => version.status === 'superseded' && version.file !== null && version.updated_at < before && s.assets.has(version.asset_id))
        .sort(earliestBy('updated_at'))
        .slice(0, limit)
        .map(copy);
    },
  };
}
