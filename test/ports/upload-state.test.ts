import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { memoryUploadStates } from '../../adapters/memory/index.js';
import { sqliteStorage, sqliteUploadStates } from '../../adapters/sqlite/index.js';
import { runUploadStateSuite } from '../../conformance/ports/upload-state.suite.js';

const check = (ok: boolean, what: string) => assert.ok(ok, what);

describe('upload-state port: memory', () => {
  runUploadStateSuite({ test, check, create: async () => memoryUploadStates() });
});

describe('upload-state port: SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-upload-state-'));
  const opened: { close(): unknown }[] = [];
  after(async () => {
    for (const store of opened) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let n = 0;
  const kept = <T extends { close(): unknown }>(store: T) => (opened.push(store), store);
  describe('sqliteUploadStates, a connection of its own', () => {
    runUploadStateSuite({ test, check, create: async () => kept(await sqliteUploadStates({ path: join(dir, `${++n}.db`) })) });
  });
  describe("sqliteStorage's uploadStates, on the storage's connection", () => {
    runUploadStateSuite({ test, check, create: async () => kept(await sqliteStorage({ path: join(dir, `${++n}.db`) })).uploadStates });
  });
});
