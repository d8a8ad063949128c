import { defineConfig } from 'tsup';

/** The library's entry points: every subpath export (docs/packaging.md). */
const library = {
  'core/index': 'core/index.ts',
  'adapters/memory/index': 'adapters/memory/index.ts',
  'adapters/sqlite/index': 'adapters/sqlite/index.ts',
  'adapters/fs/index': 'adapters/fs/index.ts',
  'adapters/s3/index': 'adapters/s3/index.ts',
  'adapters/postgres/index': 'adapters/postgres/index.ts',
  'adapters/redis/index': 'adapters/redis/index.ts',
  'conformance/index': 'conformance/index.ts',
  'bindings/node/index': 'bindings/node/index.ts',
  'bindings/fetch/index': 'bindings/fetch/index.ts',
  'testing/index': 'testing/index.ts',
  'bindings/bun/index': 'bindings/bun/index.ts',
  'bindings/deno/index': 'bindings/deno/index.ts',
  'client/index': 'client/index.ts',
};

// `npm run build` (scripts/build.mjs) empties dist/ first, runs this, then emits the declarations
// with tsc: rollup-made declarations re-exported types as values (TS2693 under skipLibCheck: false).
export default defineConfig([
  // ESM, for import everywhere and for require on Node 20.19+ and 22.12+ (the module-sync condition).
  {
    entry: { ...library, 'cli/main': 'cli/main.ts' },
    format: ['esm'],
    target: 'node20',
    dts: false,
    sourcemap: true,
    clean: false,
    splitting: true,
  },
  // CommonJS, for require on the Node versions that cannot require ESM (20.0-20.18, 22.0-22.11):
  // one bundle (tsup's CommonJS code splitting breaks class fields), every subpath a name in it.
  // jose is ESM only: it is bundled here so that require never has to load ESM.
  {
    entry: { marketkit: 'scripts/cjs-entry.ts' },
    outDir: 'dist/cjs',
    format: ['cjs'],
    target: 'node20',
    dts: false,
    sourcemap: true,
    clean: false,
    splitting: false,
    shims: true,
    noExternal: ['jose'],
  },
]);
