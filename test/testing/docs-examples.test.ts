/**
 * Every example of docs/testing.md runs here as a user runs it: the node:test and MSW files with
 * node --test, the Vitest file with the vitest binary on the example's config, and the curl
 * walk-through against `marketkit serve --memory --test-controls`.
 */
import { curlWithJson } from '../fixtures/curl.js';
import { needs } from '../fixtures/parts.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { startCliServer } from '../fixtures/cli.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
// Without the variable by which a test runner recognizes its own children, so that they report in full.
const { NODE_TEST_CONTEXT: _runner, ...env } = process.env;

async function nodeTest(file: string) {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', file], { cwd: root, env });
  return stdout;
}

test('the node:test example: the upload client survives a 429, a dropped PUT, a PUT cut halfway, a refused and an expired URL', async () => {
  const stdout = await nodeTest('docs/examples/testing/upload-client.node.test.ts');
  assert.match(stdout, /^ok \d+ - survives a 429: waits as long as Retry-After says, then retries once$/m);
  assert.match(stdout, /^ok \d+ - survives a dropped PUT: the upload is repeated and the file confirmed$/m);
  assert.match(stdout, /^ok \d+ - survives a PUT that breaks halfway: nothing half-written is confirmed$/m);
  assert.match(stdout, /^ok \d+ - a flaky network with a seeded 30% of dropped PUTs fails the same way on every run$/m);
  assert.match(stdout, /^ok \d+ - an upload URL that expired before the PUT \(the clock moved 2 hours\): a fresh one is asked for$/m);
  assert.match(stdout, /^# pass 8$/m);
  assert.match(stdout, /^# fail 0$/m);
});

test('the MSW example: requests to the real address pass through to the kit, drops become network errors', async () => {
  const stdout = await nodeTest('docs/examples/testing/msw.node.test.ts');
  assert.match(stdout, /^ok \d+ - a dropped PUT reaches the client as a network error, which it retries$/m);
  assert.match(stdout, /^# pass 2$/m);
  assert.match(stdout, /^# fail 0$/m);
});

test('the Vitest example passes under the vitest binary with its config', async () => {
  const vitest = new URL('node_modules/vitest/vitest.mjs', `file://${root}`).pathname;
  const { stdout } = await run(process.execPath, [vitest, 'run', '--config', 'docs/examples/testing/vitest.config.ts', '--reporter=verbose', '--no-color'], {
    cwd: root,
    env: { ...env, NO_COLOR: '1', CI: '1' },
  });
  assert.match(stdout, /survives a 429 on create and a dropped PUT in one run/);
  assert.match(stdout, /Tests\s+3 passed \(3\)/);
});

test('the curl walk-through drives serve --memory --test-controls: seed, 429, log, expiry, moderation, reset', async (t) => {
  if (!(await curlWithJson(t))) return;
  const server = await startCliServer(['--memory', '--test-controls']);
  t.after(() => server.stop());
  const { stdout } = await run('bash', ['docs/examples/testing/curl-controls.sh'], { cwd: root, env: { ...env, MARKETKIT_URL: server.info.url } });
  assert.deepEqual(stdout.trim().split('\n').slice(1), [
    'create: 429 retry-after=2',
    'retry: created draft',
    'log: POST /api/v1/assets 429, POST /api/v1/assets 201',
    'PUT after 2 h: 403',
    'submit: pending',
    'approve: published',
    'after reset: 1 listing, 1 logged call',
  ]);
  assert.match(stdout, /^seeded at \S+Z: 1 listing$/m);
});

test('the Python example: a unittest suite drives its client through the controls (429, dropped PUT, clock)', { skip: needs('python3').skip }, async (t) => {
  const server = await startCliServer(['--memory', '--test-controls']);
  t.after(() => server.stop());
  const { stderr } = await run('python3', ['-m', 'unittest', '-v', 'test_upload_client.py'], {
    cwd: `${root}docs/examples/testing`,
    env: { ...env, MARKETKIT_URL: server.info.url },
  });
  // unittest reports on stderr.
  assert.match(stderr, /test_survives_a_429 .*? \.\.\. ok/);
  assert.match(stderr, /test_survives_a_dropped_put .*? \.\.\. ok/);
  assert.match(stderr, /^Ran 4 tests in /m);
  assert.match(stderr, /^OK$/m);
});

test('docs/testing.md shows the example files as they are', () => {
  const doc = readFileSync(`${root}docs/testing.md`, 'utf8');
  for (const file of ['upload-client.node.test.ts', 'upload-client.vitest.test.ts', 'msw.node.test.ts', 'curl-controls.sh', 'vitest.config.ts', 'test_upload_client.py']) {
    assert.ok(doc.includes(`docs/examples/testing/${file}`), `docs/testing.md names ${file}`);
  }
  // Each quoted block of an example is a part of the file, word for word.
  const quoted = [...doc.matchAll(/<!-- from docs\/examples\/testing\/(\S+) -->\n```\w*\n([\s\S]*?)```/g)];
  assert.equal(quoted.length, 6, 'six quoted blocks');
  for (const [, file, block] of quoted) {
    assert.ok(readFileSync(`${root}docs/examples/testing/${file}`, 'utf8').includes(block!), `the block quoted from ${file} is in the file`);
  }
});
