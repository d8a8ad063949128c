import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { patternBytes } from '../../conformance/index.js';

function root(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-fs-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'blobs');
}

async function* once(bytes: Uint8Array) {
  yield bytes;
}

test('a path that could leave the root is refused by every method', async (t) => {
  const blobs = fsBlobs({ root: root(t) });
  for (const path of ['../escape', 'assets/../../escape', '/etc/passwd', 'assets//x', 'assets/./x', 'assets\\..\\x', 'a/\u0000/b', '']) {
    await assert.rejects(blobs.put(path, once(patternBytes(4)), { contentType: 'text/plain', maxBytes: 10 }), /marketkit fsBlobs: .* is not a storage path/, path);
    await assert.rejects(blobs.head(path), /not a storage path/);
    await assert.rejects(blobs.get(path), /not a storage path/);
    await assert.rejects(blobs.readStart(path, 4), /not a storage path/);
    await assert.rejects(blobs.delete(path), /not a storage path/);
  }
  assert.equal(existsSync(join(root(t), '..', 'escape')), false);
});

test('objects are plain files under objects/, and puts leave no temporary files', async (t) => {
  const dir = root(t);
  const blobs = fsBlobs({ root: dir });
  const bytes = patternBytes(1000);
  await blobs.put('assets/a/files/b/pack.zip', once(bytes), { contentType: 'application/zip', maxBytes: 10_000 });
  await assert.rejects(blobs.put('assets/a/files/c/big.zip', once(patternBytes(20_000)), { contentType: 'application/zip', maxBytes: 10_000 }));
  assert.deepStrictEqual(readdirSync(join(dir, 'tmp')), []);
  assert.deepStrictEqual(readdirSync(join(dir, 'objects', 'assets', 'a', 'files')), ['b']);
  await blobs.delete('assets/a/files/b/pack.zip');
  assert.deepStrictEqual(readdirSync(join(dir, 'objects')), [], 'emptied folders are removed');
});

test('temporary files of uploads that died with their process are swept; recent ones are kept', async (t) => {
  const dir = root(t);
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  writeFileSync(join(dir, 'tmp', 'dead'), 'partial');
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  utimesSync(join(dir, 'tmp', 'dead'), twoHoursAgo, twoHoursAgo);
  writeFileSync(join(dir, 'tmp', 'in-progress'), 'partial');
  await fsBlobs({ root: dir }).ping();
  assert.deepStrictEqual(readdirSync(join(dir, 'tmp')), ['in-progress']);
});

test('ping fails when the root cannot be written', async (t) => {
  const file = root(t);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, 'not a directory');
  await assert.rejects(fsBlobs({ root: file }).ping());
});
