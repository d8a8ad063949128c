import type { ChangeVersions } from './ports/change-version.js';
import type { ChangeVersionCapability } from './ports/storage.js';
import type { MarketplaceMetrics } from './metrics/marketplace-metrics.js';

/**
 * What the core keeps of what it read from storage, for as long as nothing stored has changed:
 * the caller a developer token names, and the results of read-only operations with their JSON.
 *
 * Validity is the storage's versions (core/ports/change-version.ts): `all`, which moves with every
 * write by this process or any other, and `callers`, which moves with every write to accounts and
 * tokens (a revocation from `marketkit token revoke` in another process included). An area made
 * with `follows: 'callers'` (the callers of tokens) is emptied only when `callers` moves, so a new
 * listing does not make every client's next request read its token and account again; every other
 * area is emptied when anything moves. A store with only `changeVersion()` moves both together.
 * Each request reads them once, first (`observe()`), and passes the answer (its stamp: a number of
 * the cache's, new whenever the versions moved) to every get and set. A read is stored only while
 * what its area follows has not moved since the stamp it was made under, so a result computed
 * before a write that another request has already observed is never kept. A store without
 * `changeVersion()` gets no cache: every request reads the store, as before.
 *
 * A store whose version lives elsewhere (PostgreSQL's, read over the network) answers with a
 * promise; `observe()` then answers with one too, and only then: the memory and SQLite stores'
 * synchronous answer is used at once, with no promise made. Answers of concurrent requests may
 * arrive out of order; any answer that differs from the cache's empties it, so an older one costs
 * hits, never freshness. A version that cannot be read (the database is down) gives the request
 * the stamp no cache holds: it reads the store, which says what is wrong.
 */
export interface ReadCache {
  /**
   * Reads the storage's version, drops everything when it moved, and returns it as this request's
   * stamp: a number when the store answers synchronously, a promise only when it does not (callers
   * await it only then).
   */
  observe(): number | Promise<number>;
  /** The bounded map called `name` (made on first use with its bounds), emptied with the cache. */
  area<V>(name: string, bounds: AreaBounds<V>): CacheArea<V>;
}

export interface AreaBounds<V> {
  maxEntries: number;
  /** 'callers': valid until accounts or tokens change, not until anything does. */
  follows?: 'all' | 'callers';
  /** With `weigh`: the most the values may weigh together (JSON characters, say). */
  maxWeight?: number;
  weigh?: (value: V) => number;
  /**
   * Scan resistance: once the area is full, a value whose key was not asked for since the area
   * last filled (among the last `maxEntries` keys turned away) is not kept, so that a run of reads
   * each made once (every listing in turn) does not push out what is read again and again.
   */
  admitSecondAsk?: boolean;
}

export interface CacheArea<V> {
  /** The value read under `stamp`, if it is still valid. */
  get(key: string, stamp: number): V | undefined;
  /** Keeps `value`, read under `stamp`, unless a write has been observed since. */
  set(key: string, value: V, stamp: number): void;
}

/** A stamp no cache ever holds: what observe() answers when the store has no changeVersion. */
const uncached = -1;

type Versions = ChangeVersions | number;

/** With `metrics`, each area's lookups are counted as hits and misses. */
export function createReadCache(storage: ChangeVersionCapability, metrics?: MarketplaceMetrics): ReadCache {
  if (typeof storage.changeVersion !== 'function') {
    const nothing: CacheArea<never> = { get: () => undefined, set: () => undefined };
    return { observe: () => uncached, area: () => nothing as CacheArea<never> };
  }
  const version: () => Versions | Promise<Versions> = typeof storage.changeVersions === 'function' ? storage.changeVersions.bind(storage) : storage.changeVersion.bind(storage);
  const maps: Map<string, unknown>[] = [];
  const callerMaps: Map<string, unknown>[] = [];
  const cleared: (() => void)[] = [];
  const callersCleared: (() => void)[] = [];
  const areas = new Map<string, CacheArea<unknown>>();
  /** The stamp of the versions last seen, and the first stamp under which `callers` had its value. */
  let current = 0;
  let callersSince = 0;
  let lastAll = NaN;
  let lastCallers = NaN;
  const seen = (now: Versions): number => {
    const all = typeof now === 'number' ? now : now.all;
    const callers = typeof now === 'number' ? now : now.callers;
    if (all !== lastAll || callers !== lastCallers) {
      current++;
      for (const map of maps) map.clear();
      for (const reset of cleared) reset();
      if (callers !== lastCallers) {
        for (const map of callerMaps) map.clear();
        for (const reset of callersCleared) reset();
        callersSince = current;
      }
      lastAll = all;
      lastCallers = callers;
    }
    return current;
  };
  const unknown = () => uncached;
  return {
    observe() {
      const now = version();
      return typeof now === 'number' || !(now instanceof Promise) ? seen(now) : now.then(seen, unknown);
    },
    area<V>(name: string, { maxEntries, maxWeight = Infinity, weigh, follows = 'all', admitSecondAsk = false }: AreaBounds<V>): CacheArea<V> {
      const existing = areas.get(name);
      if (existing) return existing as CacheArea<V>;
      const map = new Map<string, { value: V; weight: number }>();
      let weight = 0;
      /** Keys turned away while the area was full: only keys, so never stale (emptied when it reaches maxEntries). */
      const turnedAway = admitSecondAsk ? new Set<string>() : null;
      (follows === 'callers' ? callerMaps : maps).push(map);
      (follows === 'callers' ? callersCleared : cleared).push(() => (weight = 0));
      // A stamp is valid while nothing the area follows moved since it was given (stamps only grow).
      const valid = follows === 'callers' ? (stamp: number) => stamp >= callersSince && stamp !== uncached : (stamp: number) => stamp === current;
      const counted = metrics?.cacheLookup(name);
      const lookup = (key: string, stamp: number) => (valid(stamp) ? map.get(key)?.value : undefined);
      const area: CacheArea<V> = {
        // Counted: the lookup inlined rather than called, on every read of the hot path.
        get: counted
          ? (key, stamp) => {
              const found = valid(stamp) ? map.get(key)?.value : undefined;
              (found === undefined ? counted.miss : counted.hit).inc();
              return found;
            }
          : lookup,
        set(key, value, stamp) {
          if (!valid(stamp) || stamp === uncached) return;
          const entry = { value, weight: weigh ? weigh(value) : 0 };
          if (entry.weight > maxWeight) return;
          if (turnedAway && (map.size >= maxEntries || weight + entry.weight > maxWeight) && !turnedAway.delete(key)) {
            if (turnedAway.size >= maxEntries) turnedAway.clear();
            turnedAway.add(key);
            return;
          }
          const replaced = map.get(key);
          if (replaced) {
            weight -= replaced.weight;
            map.delete(key);
          }
          // Oldest first out (a Map iterates in insertion order), until the new one fits.
          while (map.size > 0 && (map.size >= maxEntries || weight + entry.weight > maxWeight)) {
            const [oldest, evicted] = map.entries().next().value as [string, { weight: number }];
            weight -= evicted.weight;
            map.delete(oldest);
          }
          map.set(key, entry);
          weight += entry.weight;
        },
      };
      areas.set(name, area as CacheArea<unknown>);
      return area;
    },
  };
}
