import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
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
    'cli/main': 'cli/main.ts',
  },
  format: ['esm'],
  target: 'node20',
  dts: { entry: ['core/index.ts', 'adapters/memory/index.ts', 'adapters/sqlite/index.ts', 'adapters/fs/index.ts', 'adapters/s3/index.ts', 'adapters/postgres/index.ts', 'adapters/redis/index.ts', 'conformance/index.ts', 'bindings/node/index.ts', 'bindings/fetch/index.ts', 'testing/index.ts', 'bindings/bun/index.ts', 'bindings/deno/index.ts', 'client/index.ts'] },
  sourcemap: true,
  clean: true,
  splitting: true,
});
