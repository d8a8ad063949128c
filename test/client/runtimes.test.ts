import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { startServer } from '../fixtures/server.js';

const root = new URL('../../', import.meta.url);
const script = new URL('test/client/runtime-script.ts', root).pathname;

/** Bun and Deno come from npm (devDependencies), so they run wherever the tests do. */
const runtimes = [
  { name: 'Bun', bin: 'node_modules/.bin/bun', args: [script] },
  // Deno resolves the client's `.js` specifiers to its `.ts` sources only with sloppy imports; a build has real `.js` files.
  { name: 'Deno', bin: 'node_modules/.bin/deno', args: ['run', '--quiet', '--allow-net', '--allow-env', '--no-prompt', '--unstable-sloppy-imports', script] },
];

function run(bin: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(bin, args, { cwd: root.pathname, env: { ...process.env, ...env, NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

for (const runtime of runtimes) {
  test(`the typed client runs on ${runtime.name}: creates a listing, uploads with progress, throws MarketKitError`, async (t) => {
    const bin = new URL(runtime.bin, root).pathname;
    if (!existsSync(bin)) return t.skip(`${runtime.name} is not installed (${runtime.bin} missing): the client was not run on it`);
    const server = await startServer();
    try {
      const result = await run(bin, runtime.args, { MARKETKIT_URL: server.url, MARKETKIT_API_TOKEN: server.seller.token });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout.trim().split('\n').at(-1)!), {
        file_size: 200_000,
        last_progress: 200_000,
        refused: 'MarketKitError 404 NOT_FOUND',
      });
    } finally {
      await server.close();
    }
  });
}
