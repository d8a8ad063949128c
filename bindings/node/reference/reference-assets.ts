import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ReferenceAssets } from '../../../core/http/reference-routes.js';
import { basicReferenceCss, basicReferenceScript } from './basic-reference.js';

/** Where swagger-ui-dist is installed, or null when it is not (it is an optional peer dependency). */
function swaggerUiRoot(): string | null {
  try {
    return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  } catch {
    // Not installed (an optional peer dependency): the basic page of our own is served instead.
    return null;
  }
}

/**
 * The API reference page's files: Swagger UI's, read from swagger-ui-dist when the application
 * installed it, else a basic page of MarketKit's own (no dependency, nothing fetched but the
 * document). Pass it as `apiReference` to createMarketplace to serve /api/v1/docs.
 */
export function nodeApiReference(): ReferenceAssets {
  const root = swaggerUiRoot();
  if (!root) {
    const encoder = new TextEncoder();
    const basic: Record<string, Uint8Array> = {
      'swagger-ui-bundle.js': encoder.encode(basicReferenceScript),
      'swagger-ui.css': encoder.encode(basicReferenceCss),
    };
    return async (name) => basic[name] ?? null;
  }
  const cache = new Map<string, Promise<Uint8Array | null>>();
  return (name) => {
    let file = cache.get(name);
    if (!file) {
      file = readFile(join(root, name)).then(
        (bytes) => new Uint8Array(bytes),
        // No such file in swagger-ui-dist: the reference route answers 404 for it.
        () => null,
      );
      cache.set(name, file);
    }
    return file;
  };
}
