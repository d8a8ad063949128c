import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { runBlobSuite } from '../../conformance/index.js';

runBlobSuite({
  test,
  create: () => fsBlobs({ root: mkdtempSync(join(tmpdir(), 'marketkit-blobs-')) }),
  dispose: (blobs) => rmSync(blobs.root, { recursive: true, force: true }),
});
