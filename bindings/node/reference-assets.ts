import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ReferenceAssets } from '../../core/http/reference-routes.js';

/**
 * The API reference page's files, read from the installed swagger-ui-dist package. Pass it as
 * `apiReference` to createMarketplace to serve /api/v1/docs.
 */
export function nodeApiReference(): ReferenceAssets {
  const root = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Promise<Uint8Array | null>>();
  return (name) => {
    let file = cache.get(name);
    if (!file) {
      file = readFile(join(root, name)).then(
        (bytes) => new Uint8Array(bytes),
        () => null,
      );
      cache.set(name, file);
    }
    return file;
  };
}
