import { createHash } from 'node:crypto';
import type { HashingPort } from '../../../core/ports/hashing.js';

/** node:crypto's SHA-256 for the single PUT (createMarketplace's `hashing`); Bun and Deno have node:crypto too. */
export function nodeHashing(): HashingPort {
  return {
    sha256() {
      const hash = createHash('sha256');
      return {
        update: (bytes) => void hash.update(bytes),
        hex: () => hash.digest('hex'),
      };
    },
  };
}
