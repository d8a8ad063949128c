/** How many changes a group of maps has seen: the memory store's changeVersion(). */
export interface ChangeCounter {
  count: number;
}

/**
 * A Map whose content at a moment can be kept (`freeze()`) and put back (`thaw(frozen)`) in constant
 * time: changes since the last freeze or thaw live in a small layer over a base that is never
 * written to, so putting a state back only drops that layer. The values themselves are shared,
 * which is safe because the memory adapters never change a stored value in place.
 */
export class LayeredMap<K, V> {
  #base: ReadonlyMap<K, V>;
  #changed = new Map<K, V>();
  #deleted = new Set<K>();
  #changes: ChangeCounter;

  /** `changes` is counted up by every set, delete and thaw; maps of one store share one counter. */
  constructor(base: ReadonlyMap<K, V> = new Map(), changes: ChangeCounter = { count: 0 }) {
    this.#base = base;
    this.#changes = changes;
  }

  get(key: K): V | undefined {
    if (this.#changed.has(key)) return this.#changed.get(key);
    return this.#deleted.has(key) ? undefined : this.#base.get(key);
  }

  has(key: K): boolean {
    return this.#changed.has(key) || (!this.#deleted.has(key) && this.#base.has(key));
  }

  set(key: K, value: V): this {
    this.#changes.count++;
    this.#changed.set(key, value);
    this.#deleted.delete(key);
    return this;
  }

  delete(key: K): boolean {
    this.#changes.count++;
    const had = this.has(key);
    this.#changed.delete(key);
    if (this.#base.has(key)) this.#deleted.add(key);
    return had;
  }

  get size(): number {
    let size = this.#base.size - this.#deleted.size;
    for (const key of this.#changed.keys()) if (!this.#base.has(key) || this.#deleted.has(key)) size++;
    return size;
  }

  *entries(): IterableIterator<[K, V]> {
    for (const entry of this.#base) {
      if (!this.#changed.has(entry[0]) && !this.#deleted.has(entry[0])) yield entry;
    }
    yield* this.#changed;
  }

  *values(): IterableIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  /** The content now, as a map that is never written to again; cheap when nothing changed since the last one. */
  freeze(): ReadonlyMap<K, V> {
    if (this.#changed.size > 0 || this.#deleted.size > 0) {
      this.#base = new Map(this.entries());
      this.#changed = new Map();
      this.#deleted = new Set();
    }
    return this.#base;
  }

  /** Puts back a content that freeze() returned, in constant time. */
  thaw(frozen: ReadonlyMap<K, V>): void {
    this.#changes.count++;
    this.#base = frozen;
    if (this.#changed.size > 0) this.#changed = new Map();
    if (this.#deleted.size > 0) this.#deleted = new Set();
  }
}
