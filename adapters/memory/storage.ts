import type { StoragePort } from '../../core/ports/storage.js';
import type { ChangeCounter, LayeredMap } from './layered-map.js';
import { accountMethods } from './storage-accounts.js';
import { assetMethods } from './storage-assets.js';
import { emptyState, stateKeys, type MemoryStorageState } from './storage-state.js';
import { uploadMethods } from './storage-uploads.js';
import { idempotencyMethods } from './storage-keys.js';
import { listIndexes } from './list-indexes.js';
import { webhookMethods } from './storage-webhooks.js';
import { versionMethods } from './storage-versions.js';
import type { VersionsPort } from '../../core/ports/versions.js';
import type { DashboardPort } from '../../core/ports/dashboard.js';
import { dashboardMethods } from './storage-dashboard.js';
import type { AuditPort } from '../../core/ports/audit.js';
import { auditMethods } from './storage-audit.js';

/** A memory store's whole content at one moment, restorable any number of times. Opaque. */
export interface MemoryStorageSnapshot {
  readonly kind: 'memoryStorage';
  /** @internal */
  readonly maps: Readonly<Record<keyof MemoryStorageState, ReadonlyMap<string, unknown>>>;
}

export interface MemoryStorage extends StoragePort {
  /** The content now: constant time when nothing changed since the last snapshot or restore, else one copy of the maps (never of the records). */
  snapshot(): MemoryStorageSnapshot;
  /** Puts back the content of a snapshot of this store or another memory store, in constant time. */
  restore(snapshot: MemoryStorageSnapshot): void;
  /** Versions of published listings (core/ports/versions.ts): the memory store has the capability. */
  versions: VersionsPort;
  /** The dashboard's sessions and sign-in links (core/ports/dashboard.ts). */
  dashboard: DashboardPort;
  /** The audit log of the dashboard's moderators and operators (core/ports/audit.ts). */
  audit: AuditPort;
}

/**
 * The storage port in this process's memory. Every method runs to completion without awaiting in
 * between, so each is atomic against every other call, as the port requires.
 */
export function memoryStorage(): MemoryStorage {
  const changes: ChangeCounter = { count: 0 };
  const callers: ChangeCounter = { count: 0 };
  const s = emptyState(changes, callers);
  const indexes = listIndexes(s);

  return {
    changeVersion: () => changes.count,
    changeVersions: () => ({ all: changes.count, callers: callers.count }),
    snapshot() {
      const maps = Object.fromEntries(stateKeys.map((key) => [key, s[key].freeze()]));
      return { kind: 'memoryStorage', maps: maps as unknown as MemoryStorageSnapshot['maps'] };
    },
    restore(snapshot) {
      if (snapshot?.kind !== 'memoryStorage') throw new Error('memoryStorage.restore: pass a value returned by snapshot()');
      for (const key of stateKeys) (s[key] as LayeredMap<string, unknown>).thaw(snapshot.maps[key]);
      indexes.drop();
    },

    ...accountMethods(s, indexes),
    ...assetMethods(s, indexes),
    ...uploadMethods(s),
    ...idempotencyMethods(s),
    ...webhookMethods(s),
    versions: versionMethods(s, indexes),
    dashboard: dashboardMethods(s),
    audit: auditMethods(s),

    async ping() {},
  };
}
