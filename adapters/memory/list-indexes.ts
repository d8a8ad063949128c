import { foldAscii, searchTrigrams } from '../../core/ports/listings.js';
import type { AccountRecord, AssetRecord } from '../../core/ports/records.js';
import { SortedKeys } from './sorted-keys.js';
import type { MemoryStorageState } from './storage-state.js';

/**
 * The memory store's list indexes: per owner (and per owner and status) by created_at, per status
 * by updated_at (the moderation queue), accounts by username. A page is then a binary search and a
 * slice, and a total the size of one index, whatever the number of records (no scan and sort per
 * page). Built on first use from the maps, kept by every write, and dropped by a restore (the maps
 * then hold another content), to be built again on the next list: restore stays constant time.
 */
export interface ListIndexes {
  /** The indexes, built if they are not. */
  get(): BuiltIndexes;
  assetAdded(asset: AssetRecord): void;
  assetRemoved(asset: AssetRecord): void;
  accountAdded(account: AccountRecord): void;
  accountRemoved(account: AccountRecord): void;
  /** The word index (AssetQuery.search): trigram -> ids of the listings whose folded title and slug hold it; built on the first search. */
  words(): Map<string, Set<string>>;
  /** The maps were replaced (restore, a bulk load): build again on next use. */
  drop(): void;
}

export interface BuiltIndexes {
  byOwner: Map<string, SortedKeys>;
  byOwnerStatus: Map<string, SortedKeys>;
  byStatus: Map<string, SortedKeys>;
  accounts: SortedKeys;
}

const ownerStatus = (ownerId: string, status: string) => `${ownerId}\n${status}`;

function keysOf(map: Map<string, SortedKeys>, name: string): SortedKeys {
  let keys = map.get(name);
  if (!keys) map.set(name, (keys = new SortedKeys()));
  return keys;
}

/** The trigrams a listing is found by: its title and slug folded, one line each (a run across the two is a candidate only, never a match). */
const wordsOf = (asset: AssetRecord) => searchTrigrams(`${foldAscii(asset.title)}\n${foldAscii(asset.slug)}`);

export function listIndexes(s: MemoryStorageState): ListIndexes {
  let built: BuiltIndexes | null = null;
  let words: Map<string, Set<string>> | null = null;
  const addWords = (asset: AssetRecord) => {
    for (const gram of wordsOf(asset)) (words!.get(gram) ?? words!.set(gram, new Set()).get(gram)!).add(asset.id);
  };

  const build = (): BuiltIndexes => {
    const groups = { byOwner: new Map<string, AssetRecord[]>(), byOwnerStatus: new Map<string, AssetRecord[]>(), byStatus: new Map<string, AssetRecord[]>() };
    const push = (map: Map<string, AssetRecord[]>, name: string, asset: AssetRecord) => (map.get(name) ?? map.set(name, []).get(name)!).push(asset);
    for (const asset of s.assets.values()) {
      push(groups.byOwner, asset.owner_id, asset);
      push(groups.byOwnerStatus, ownerStatus(asset.owner_id, asset.status), asset);
      push(groups.byStatus, asset.status, asset);
    }
    const index = (map: Map<string, AssetRecord[]>, key: (asset: AssetRecord) => string) =>
      new Map([...map].map(([name, assets]) => {
        const keys = new SortedKeys();
        keys.load(assets.map((asset) => ({ key: key(asset), id: asset.id })));
        return [name, keys] as const;
      }));
    const accounts = new SortedKeys();
    accounts.load([...s.accounts.values()].map((account) => ({ key: account.username, id: account.id })));
    return {
      byOwner: index(groups.byOwner, (a) => a.created_at),
      byOwnerStatus: index(groups.byOwnerStatus, (a) => a.created_at),
      byStatus: index(groups.byStatus, (a) => a.updated_at),
      accounts,
    };
  };

  return {
    get: () => (built ??= build()),
    words() {
      if (!words) {
        words = new Map();
        for (const asset of s.assets.values()) addWords(asset);
      }
      return words;
    },
    assetAdded(asset) {
      if (words) addWords(asset);
      if (!built) return;
      keysOf(built.byOwner, asset.owner_id).insert(asset.created_at, asset.id);
      keysOf(built.byOwnerStatus, ownerStatus(asset.owner_id, asset.status)).insert(asset.created_at, asset.id);
      keysOf(built.byStatus, asset.status).insert(asset.updated_at, asset.id);
    },
    assetRemoved(asset) {
      if (words) {
        for (const gram of wordsOf(asset)) {
          const ids = words.get(gram);
          ids?.delete(asset.id);
          if (ids?.size === 0) words.delete(gram);
        }
      }
      if (!built) return;
      built.byOwner.get(asset.owner_id)?.remove(asset.created_at, asset.id);
      built.byOwnerStatus.get(ownerStatus(asset.owner_id, asset.status))?.remove(asset.created_at, asset.id);
      built.byStatus.get(asset.status)?.remove(asset.updated_at, asset.id);
    },
    accountAdded(account) {
      built?.accounts.insert(account.username, account.id);
    },
    accountRemoved(account) {
      built?.accounts.remove(account.username, account.id);
    },
    drop() {
      built = null;
      words = null;
    },
  };
}

/** The index of an owner's assets, of one status or all. */
export function ownerKeys(indexes: BuiltIndexes, ownerId: string, status?: string): SortedKeys | undefined {
  return status ? indexes.byOwnerStatus.get(ownerStatus(ownerId, status)) : indexes.byOwner.get(ownerId);
}
