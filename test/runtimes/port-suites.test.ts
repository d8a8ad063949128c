/**
 * The storage port suite on bun:sqlite under real Bun and on node:sqlite under real Deno, and the
 * blob suite on filesystem blobs under each: `bun test` and `deno test` run the node:test file
 * test/runtimes/on-runtime/port-suites.ts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { runScript } from '../fixtures/cli.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const suite = './test/runtimes/on-runtime/port-suites.ts';

/** The output without colour codes. */
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

test('on Bun, the storage suite passes on bun:sqlite and the blob suite on filesystem blobs', { timeout: 180_000 }, async () => {
  const [bun] = runScript('bun', suite);
  const { stdout, stderr } = await run(bun!, ['test', suite], { cwd: root, env: { ...process.env, NO_COLOR: '1' } });
  const output = plain(stdout + stderr);
  assert.match(output, /\(pass\) runtime sqlite: the driver is the runtime’s own/);
  assert.match(output, /\(pass\) runtime sqlite storage port atomicity: of 50 concurrent creates with one slug exactly one is created/);
  assert.match(output, /^ 0 fail$/m);
  assert.doesNotMatch(output, /\((fail|skip)\)/);
});

test('on Deno, the storage suite passes on node:sqlite and the blob suite on filesystem blobs', { timeout: 180_000 }, async () => {
  const [deno] = runScript('deno', suite);
  const { stdout, stderr } = await run(deno!, ['test', '--unstable-sloppy-imports', '--allow-read', '--allow-write', '--allow-env', suite], { cwd: root, env: { ...process.env, NO_COLOR: '1' } });
  const output = plain(stdout + stderr);
  assert.match(output, /runtime sqlite: the driver is the runtime’s own \.\.\. ok/);
  assert.match(output, /runtime sqlite storage port atomicity: of 50 concurrent creates with one slug exactly one is created \.\.\. ok/);
  assert.match(output, /^ok \| \d+ passed \| 0 failed/m);
  assert.doesNotMatch(output, /\.\.\. (FAILED|ignored)/);
});
