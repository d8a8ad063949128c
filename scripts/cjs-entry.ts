// The CommonJS build's one bundle: every subpath export under a name (its path, / as _), so that
// all subpaths share one copy of the core (one ApiError class, one set of module state).
// scripts/build.mjs writes dist/cjs/<subpath>/index.cjs as `require('<bundle>').<name>` and stops
// when a subpath of package.json's exports has no name here. Why: docs/packaging.md.
export * as core from '../core/index.js';
export * as adapters_memory from '../adapters/memory/index.js';
export * as adapters_sqlite from '../adapters/sqlite/index.js';
export * as adapters_fs from '../adapters/fs/index.js';
export * as adapters_s3 from '../adapters/s3/index.js';
export * as adapters_postgres from '../adapters/postgres/index.js';
export * as adapters_redis from '../adapters/redis/index.js';
export * as conformance from '../conformance/index.js';
export * as bindings_node from '../bindings/node/index.js';
export * as bindings_fetch from '../bindings/fetch/index.js';
export * as testing from '../testing/index.js';
export * as bindings_bun from '../bindings/bun/index.js';
export * as bindings_deno from '../bindings/deno/index.js';
export * as client from '../client/index.js';
