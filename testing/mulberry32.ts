/**
 * mulberry32: a small seeded generator, the same sequence for the same seed on every run (for
 * tests: nothing it gives is secret). Used by the kit's ids and faults and by the rate-limit suite.
 */
export interface Mulberry32 {
  /** The next 32-bit word, as an unsigned integer. */
  next32(): number;
  /** The next number in [0, 1). */
  random(): number;
  /** Where the sequence stands: read it, or set it to repeat what followed. */
  state: number;
}

export function mulberry32(seed: number): Mulberry32 {
  const generator: Mulberry32 = {
    state: seed >>> 0,
    next32() {
      generator.state = (generator.state + 0x6d2b79f5) >>> 0;
      let t = generator.state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return (t ^ (t >>> 14)) >>> 0;
    },
    random: () => generator.next32() / 4294967296,
  };
  return generator;
}
