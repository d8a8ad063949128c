/**
 * marketkit/testing imports no node:* module of its own (listen() loads the Node binding when
 * called), so a client's tests can use it under Bun and Deno too: the same script on each.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { runScript } from '../fixtures/cli.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const script = './test/testing/on-runtime/kit-script.ts';

for (const runtime of ['node', 'bun', 'deno'] as const) {
  test(`on ${runtime}: create and read, a 429 and a dropped call, reset, and listen()`, { timeout: 120_000 }, async () => {
    const [command, ...args] = runScript(runtime, script);
    const { stdout } = await run(command!, args, { cwd: root, env: { ...process.env, NO_COLOR: '1' } });
    assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1)!), {
      created: 201,
      read: 200,
      limited: [429, '3'],
      dropped: 'TypeError',
      afterReset: ['seeded-pack'],
      overHttp: 200,
    });
  });
}
