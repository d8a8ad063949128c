import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { startServer } from '../fixtures/server.js';
import { runCommand } from './run-command.js';

const root = new URL('../../', import.meta.url);
const script = new URL('test/client/runtime-script.ts', root).pathname;

/** Bun and Deno come from npm (devDependencies), so they run wherever the tests do. */
const runtimes = [
  { name: 'Bun', bin: 'node_modules/.bin/bun', args: [script] },
  // Deno resolves the client's `.js` specifiers to its `.ts` sources only with sloppy imports; a build has real `.js` files.
  { name: 'Deno', bin: 'node_modules/.bin/deno', args: ['run', '--quiet', '--allow-net', '--allow-env', '--no-prompt', '--unstable-sloppy-imports', script] },
];

for (const runtime of runtimes) {
  test(`the typed client runs on ${runtime.name}: creates a listing, uploads with progress (one PUT, and resumably in chunks), throws MarketKitError`, async (t) => {
    const bin = new URL(runtime.bin, root).pathname;
    if (!existsSync(bin)) return t.skip(`${runtime.name} is not installed (${runtime.bin} missing): the client was not run on it`);
    const server = await startServer();
    try {
      const result = await runCommand(bin, runtime.args, { MARKETKIT_URL: server.url, MARKETKIT_API_TOKEN: server.seller.token });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout.trim().split('\n').at(-1)!), {
        file_size: 200_000,
        last_progress: 200_000,
        resumable: { progress: [0, 2 ** 20, 2 * 2 ** 20, 3 * 2 ** 20], sha256_matches: true },
        refused: 'MarketKitError 404 NOT_FOUND',
      });
    } finally {
      await server.close();
    }
  });
}
