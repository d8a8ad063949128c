import type { StoragePort } from './ports/storage.js';
import type { MarketplaceMetrics } from './metrics/marketplace-metrics.js';

/**
 * What the core keeps of what it read from storage, for as long as nothing stored has changed:
 * the caller a developer token names, and the results of read-only operations with their JSON.
 *
 * Validity is one number, the storage's `changeVersion()`, which moves with every write by this
 * process or any other (a revocation from `marketkit token revoke` in another process included).
 * Each request reads it once, first (`observe()`), and passes the answer (its stamp) to every get
 * and set. A read is stored only while the stamp it was made under is still the cache's, so a
 * result computed before a write that another request has already observed is never kept. A store
 * without `changeVersion()` gets no cache: every request reads the store, as before.
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
  /** With `weigh`: the most the values may weigh together (JSON characters, say). */
  maxWeight?: number;
  weigh?: (value: V) => number;
}

export interface CacheArea<V> {
  /** The value read under `stamp`, if it is still valid. */
  get(key: string, stamp: number): V | undefined;
  /** Keeps `value`, read under `stamp`, unless a write has been observed since. */
  set(key: string, value: V, stamp: number): void;
}

/** A stamp no cache ever holds: what observe() answers when the store has no changeVersion. */
const uncached = -1;

/** With `metrics`, each area's lookups are counted as hits and misses. */
export function createReadCache(storage: Pick<StoragePort, 'changeVersion'>, metrics?: MarketplaceMetrics): ReadCache {
  if (typeof storage.changeVersion !== 'function') {
    const nothing: CacheArea<never> = { get: () => undefined, set: () => undefined };
    return { observe: () => uncached, area: () => nothing as CacheArea<never> };
  }
  const version = storage.changeVersion.bind(storage);
  const maps: Map<string, unknown>[] = [];
  const cleared: (() => void)[] = [];
  const areas = new Map<string, CacheArea<unknown>>();
  let current = uncached;
  const seen = (now: number): number => {
    if (now !== current) {
      for (const map of maps) map.clear();
      for (const reset of cleared) reset();
      current = now;
    }
    return now;
  };
  const unknown = () => uncached;
  return {
    observe() {
      const now = version();
      return typeof now === 'number' ? seen(now) : now.then(seen, unknown);
    },
    area<V>(name: string, { maxEntries, maxWeight = Infinity, weigh }: AreaBounds<V>): CacheArea<V> {
      const existing = areas.get(name);
      if (existing) return existing as CacheArea<V>;
      const map = new Map<string, { value: V; weight: number }>();
      let weight = 0;
      maps.push(map);
      cleared.push(() => (weight = 0));
      const counted = metrics?.cacheLookup(name);
      const lookup = (key: string, stamp: number) => (stamp === current ? map.get(key)?.value : undefined);
      const area: CacheArea<V> = {
        get: counted
          ? (key, stamp) => {
              const found = lookup(key, stamp);
              (found === undefined ? counted.miss : counted.hit).inc();
              return found;
            }
          : lookup,
        set(key, value, stamp) {
          if (stamp !== current || stamp === uncached) return;
          const entry = { value, weight: weigh ? weigh(value) : 0 };
          if (entry.weight > maxWeight) return;
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
