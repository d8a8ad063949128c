/**
 * Running MarketKit's port suites against your own adapters with node:test:
 *
 *   node --import tsx --test adapter-conformance.test.ts
 *
 * In your project the imports are `marketkit/conformance`, `marketkit/adapters/memory` and your
 * own module; this copy imports the repository's sources so that its test runs it as it is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runBlobSuite, runStorageSuite } from '../../conformance/index.js';
import { memoryStorage } from '../../adapters/memory/index.js';
import { fsBlobs } from '../../adapters/fs/index.js';
import type { StoragePort } from '../../core/index.js';

// Your storage adapter. Here: one that wraps another and counts calls, to show the shape.
function countingStorage(inner: StoragePort): StoragePort & { calls: number } {
  const counted = { calls: 0 } as StoragePort & { calls: number };
  for (const [name, method] of Object.entries(inner)) {
    // An optional capability that is an object of its own (versions: core/ports/versions.ts) is passed on as it is.
    if (typeof method !== 'function') {
      (counted as unknown as Record<string, unknown>)[name] = method;
      continue;
    }
    (counted as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      counted.calls++;
      return (method as (...a: unknown[]) => unknown)(...args);
    };
  }
  return counted;
}

runStorageSuite({
  test,
  // A new, empty store for every test.
  create: () => countingStorage(memoryStorage()),
  // Several adapters in one run are told apart by a prefix.
  prefix: 'counting: ',
  // A group your adapter cannot meet yet is turned off with the reason, never silently:
  // skip: { atomicity: 'single-writer store: the application serializes writes' },
  // A store without versions of published listings says so: skip: { versions: 'no version review' },
});

// A blob store on a directory: a fresh one per test, removed after it.
runBlobSuite({
  test,
  create: () => fsBlobs({ root: mkdtempSync(join(tmpdir(), 'my-blobs-')) }),
  dispose: (blobs) => rmSync(blobs.root, { recursive: true, force: true }),
  prefix: 'fs: ',
});
