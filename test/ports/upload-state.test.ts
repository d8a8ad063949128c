import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { memoryUploadStates } from '../../adapters/memory/index.js';
import { sqliteUploadStates } from '../../adapters/sqlite/index.js';
import { runUploadStateSuite } from '../../conformance/ports/upload-state.suite.js';

const check = (ok: boolean, what: string) => assert.ok(ok, what);

describe('upload-state port: memory', () => {
  runUploadStateSuite({ test, check, create: async () => memoryUploadStates() });
});

describe('upload-state port: SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-upload-state-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  runUploadStateSuite({ test, check, create: async () => sqliteUploadStates({ path: join(dir, `${++n}.db`) }) });
});
