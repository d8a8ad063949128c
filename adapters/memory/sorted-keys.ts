import type { ListPosition } from '../../core/ports/listings.js';

/** Byte order of (key, id), the order the SQL stores' `COLLATE "C"` indexes keep. */
const compare = (a: ListPosition, b: ListPosition): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The (sort key, id) pairs of one list, kept in ascending order in an array, so that a page at any
 * offset or after any position is a binary search and a slice: what an index is to a SQL store.
 * A descending list reads the same array from the end, so the newest record (the usual insert)
 * is an append, not a shift of every other entry.
 */
export class SortedKeys {
  readonly #entries: ListPosition[] = [];

  get size(): number {
    return this.#entries.length;
  }

  /** The index of the first entry not before `position`. */
  #lowerBound(position: ListPosition): number {
    let low = 0;
    let high = this.#entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compare(this.#entries[middle]!, position) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  insert(key: string, id: string): void {
    const entry = { key, id };
    const entries = this.#entries;
    // Appends are the common case (a new record sorts last): no search.
    if (entries.length === 0 || compare(entries[entries.length - 1]!, entry) < 0) entries.push(entry);
    else entries.splice(this.#lowerBound(entry), 0, entry);
  }

  remove(key: string, id: string): void {
    const at = this.#lowerBound({ key, id });
    const found = this.#entries[at];
    if (found && found.key === key && found.id === id) this.#entries.splice(at, 1);
  }

  /** Builds the order of many entries at once (a rebuild or a bulk load): one sort. */
  load(entries: Iterable<ListPosition>): void {
    for (const entry of entries) this.#entries.push({ key: entry.key, id: entry.id });
    this.#entries.sort(compare);
  }

  /** The ids of a page: from `offset`, or after `after`, in ascending or descending order. */
  page(order: 'asc' | 'desc', limit: number, offset: number, after?: ListPosition): string[] {
    const entries = this.#entries;
    const ids: string[] = [];
    if (order === 'asc') {
      let at = after ? this.#lowerBound(after) : offset;
      if (after && entries[at] && compare(entries[at]!, after) === 0) at++;
      for (; at < entries.length && ids.length < limit; at++) ids.push(entries[at]!.id);
    } else {
      let at = after ? this.#lowerBound(after) - 1 : entries.length - 1 - offset;
      for (; at >= 0 && ids.length < limit; at--) ids.push(entries[at]!.id);
    }
    return ids;
  }
}
