import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { test } from 'node:test';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { exports: Record<string, { import: { types: string; default: string }; require: { types: string; default: string } } | string> };

test('the build gives every subpath export its module and its types, importable by package name', { timeout: 180_000 }, async () => {
  await run(process.execPath, [new URL('scripts/build.mjs', root).pathname], { cwd: root.pathname });
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue;
    for (const file of [target.import.types, target.import.default, target.require.types, target.require.default]) {
      assert.ok(existsSync(new URL(file, root)), `${subpath}: ${file} was built`);
    }
    // A child process, so that the import goes through the exports map exactly as a user's would.
    const name = `marketkit${subpath.slice(1)}`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(name)}); console.log(Object.keys(m).join(','))`], { cwd: root.pathname });
    assert.ok(stdout.trim().length > 0, `${name} exports something`);
  }
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', "const { createMarketplace } = await import('marketkit'); const { memoryStorage, memoryBlobs } = await import('marketkit/adapters/memory'); const m = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() }); const r = await m.fetch(new Request('http://x/api/v1/health')); console.log(r.status)"], { cwd: root.pathname });
  assert.equal(stdout.trim(), '200', 'the built package serves a request');
});

test('the marketkit command answers --help', async () => {
  const { stdout } = await run(process.execPath, [new URL('bin/marketkit.js', root).pathname, '--help'], { cwd: root.pathname });
  assert.match(stdout, /Usage: marketkit <command>/);
  assert.match(stdout, /serve/);
});
