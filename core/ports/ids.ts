/** Identifiers and randomness. Tests replace it for reproducible ids. */
export interface IdsPort {
  /** A new RFC 9562 version-4 UUID: random, for what must not be guessed or ordered (request ids, storage paths, session key ids). */
  uuid(): string;
  /**
   * A new UUID whose order is the order of creation, for the keys of records written often
   * (listings, outbox events): RFC 9562 version 7, the milliseconds since the epoch, then a
   * counter, then random bits. A new key lands beside the last one in the key's index, where a
   * random one lands on a page of its own: under a group of creates on SQLite, 3.2 pages written to
   * the WAL per create against 5.4 (docs/performance.md, "Ordered ids"). Optional: a port without
   * it (a test's reproducible ids) gets uuid() for these keys too.
   */
  orderedUuid?(): string;
  /** `length` cryptographically random bytes. */
  randomBytes(length: number): Uint8Array;
}

/** The key of a new record written often: ordered where the port makes ordered ids, uuid() otherwise. */
export const recordId = (ids: IdsPort): string => (ids.orderedUuid ? ids.orderedUuid() : ids.uuid());

const hex = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * Version-7 UUIDs, ordered within this process (RFC 9562, section 6.2, method 1): in one
 * millisecond, a 12-bit counter (rand_a) that starts from a random value below 2^11 and counts
 * up; when it runs out, or when the clock steps back, the timestamp moves one millisecond past
 * the last one used. 62 random bits (rand_b) follow. Random bytes are drawn 4 KiB at a time.
 */
export function orderedUuids(now: () => number = Date.now): () => string {
  let lastMs = -1;
  let counter = 0;
  const pool = new Uint8Array(4096);
  let used = pool.length;
  const random = (count: number): number => {
    if (used + count > pool.length) {
      crypto.getRandomValues(pool);
      used = 0;
    }
    const at = used;
    used += count;
    return at;
  };
  /** The first two groups, the timestamp's, made again only when the millisecond moves. */
  let prefix = '';
  return () => {
    let ms = now();
    if (ms > lastMs) {
      const at = random(2);
      counter = ((pool[at]! << 8) | pool[at + 1]!) & 0x7ff;
    } else if (counter < 0xfff) {
      ms = lastMs;
      counter++;
    } else {
      ms = lastMs + 1;
      counter = 0;
    }
    if (ms !== lastMs) {
      const high = Math.floor(ms / 2 ** 16);
      prefix = `${hex[(high >>> 24) & 0xff]}${hex[(high >>> 16) & 0xff]}${hex[(high >>> 8) & 0xff]}${hex[high & 0xff]}-${hex[(ms >>> 8) & 0xff]}${hex[ms & 0xff]}-`;
      lastMs = ms;
    }
    const at = random(8);
    const p = pool;
    return `${prefix}${hex[0x70 | (counter >>> 8)]}${hex[counter & 0xff]}-${hex[0x80 | (p[at]! & 0x3f)]}${hex[p[at + 1]!]}-${hex[p[at + 2]!]}${hex[p[at + 3]!]}${hex[p[at + 4]!]}${hex[p[at + 5]!]}${hex[p[at + 6]!]}${hex[p[at + 7]!]}`;
  };
}

export const webCryptoIds: IdsPort = {
  uuid: () => crypto.randomUUID(),
  orderedUuid: orderedUuids(),
  randomBytes: (length) => crypto.getRandomValues(new Uint8Array(length)),
};
