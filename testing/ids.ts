import type { IdsPort } from '../core/ports/ids.js';
import { mulberry32 } from './mulberry32.js';

/**
 * Ids and random bytes from a seeded generator: the same seed gives the same ids, tokens and
 * signing secret on every run, and restoring its state repeats them (for a test kit, never for
 * production: nothing here is secret).
 */
export function seededIds(seed: number): IdsPort & { state(): number; setState(state: number): void } {
  const generator = mulberry32(seed);
  const next32 = generator.next32;
  const randomBytes = (length: number) => {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i += 4) {
      const word = next32();
      for (let j = 0; j < 4 && i + j < length; j++) out[i + j] = (word >>> (j * 8)) & 0xff;
    }
    return out;
  };
  const hex = (n: number) => n.toString(16).padStart(8, '0');
  return {
    uuid() {
      const [w0, w1, w2, w3] = [next32(), next32(), next32(), next32()];
      const h = hex(w0) + hex(((w1 & 0xffff0fff) | 0x00004000) >>> 0) + hex(((w2 & 0x3fffffff) | 0x80000000) >>> 0) + hex(w3);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
    },
    randomBytes,
    state: () => generator.state,
    setState(state) {
      generator.state = state >>> 0;
    },
  };
}
