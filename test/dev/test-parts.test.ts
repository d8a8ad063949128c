/**
 * `npm test`'s set-up of the machine's parts (scripts/test-parts.mjs, run by scripts/test.mjs), as a
 * user runs it: a child process with a PATH of the test's own, so that a part is present (a stand-in
 * on that PATH), missing and not installable (no apt-get on it, or MARKETKIT_INSTALL_PARTS=0), or
 * installed (a stand-in apt-get, as root), without touching what this machine has installed.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parts } from '../../scripts/test-parts.mjs';

const root = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'marketkit-parts-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A folder for PATH holding the given executables (name -> shell script body). */
function bin(name: string, scripts: Record<string, string> = {}): string {
  const folder = join(dir, name);
  mkdirSync(folder);
  for (const [file, body] of Object.entries(scripts)) {
    writeFileSync(join(folder, file), `#!/bin/sh\n${body}\n`);
    chmodSync(join(folder, file), 0o755);
  }
  return folder;
}

/** Runs `node <script> ...args` from the checkout with PATH and the environment given; resolves whatever the exit code. */
function run(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = { ...process.env };
  // Not a child of this test runner (it would report to it), and nothing of this machine's own set-up.
  for (const name of ['NODE_TEST_CONTEXT', 'CI', 'MARKETKIT_INSTALL_PARTS', 'MARKETKIT_REDIS_SERVER']) delete base[name];
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { cwd: root, env: { ...base, ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

const redisTests = parts.find((p) => p.name === 'redis-server')!.tests;

test('a part that is present: nothing is printed and the exit code is 0', async () => {
  const path = bin('present', { 'redis-server': 'exit 0' });
  const { code, stdout, stderr } = await run('scripts/test-parts.mjs', ['redis-server'], { PATH: path });
  assert.deepEqual([code, stdout, stderr], [0, '', '']);
});

test('a part missing where nothing can install it: named once, with why, how to get it and the tests it skips; exit code 0', async () => {
  const { code, stdout } = await run('scripts/test-parts.mjs', ['redis-server'], { PATH: bin('empty') });
  assert.equal(code, 0);
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 3, stdout);
  assert.equal(lines[0], 'test parts: 1 missing:');
  // Root with no apt-get on this PATH, or not root: either way not installable.
  assert.match(lines[1]!, /^ {2}redis-server: missing \((no apt-get here|not root); to get it: apt-get install -y redis-server as root/);
  assert.equal(lines[2], `    skipped, saying so: ${redisTests.join(', ')}`);
  assert.ok(redisTests.includes('test/ports/rate-limit-redis.test.ts'));

  const off = await run('scripts/test-parts.mjs', ['redis-server'], { PATH: bin('empty-2'), MARKETKIT_INSTALL_PARTS: '0' });
  assert.equal(off.code, 0);
  assert.match(off.stdout, /redis-server: missing \(installing is turned off \(MARKETKIT_INSTALL_PARTS=0\)/);
});

test('under CI=true a missing part is a failure: exit code 1, naming it and the tests that fail for it', async () => {
  const { code, stdout } = await run('scripts/test-parts.mjs', ['redis-server'], { PATH: bin('empty-ci'), CI: 'true' });
  assert.equal(code, 1);
  assert.match(stdout, /^test parts: 1 missing, and CI=true makes that a failure:\n/);
  assert.match(stdout, /redis-server: missing/);
  assert.ok(stdout.includes(`    failing: ${redisTests.join(', ')}`), stdout);
});

test('as root with apt-get, a missing part is installed: apt-get update once, then install, one line printed', { skip: process.getuid?.() !== 0 && 'SKIPPED LOUDLY: installing needs root, and this run is not' }, async () => {
  const path = bin('apt');
  const log = join(dir, 'apt.log');
  // A stand-in apt-get that "installs" redis-server onto the same PATH.
  writeFileSync(join(path, 'apt-get'), `#!/bin/sh\necho "$@" >> ${log}\ncase "$*" in *install*redis-server*) printf '#!/bin/sh\\n' > ${path}/redis-server; /bin/chmod +x ${path}/redis-server;; esac\n`);
  chmodSync(join(path, 'apt-get'), 0o755);
  const { code, stdout } = await run('scripts/test-parts.mjs', ['redis-server'], { PATH: path });
  assert.equal(code, 0);
  assert.match(stdout, /^test parts: installed redis-server \(apt-get install redis-server, \d+ s\)\n$/);
  assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n'), ['-qq update', '-qq install -y --no-install-recommends redis-server']);
});

test('npm test with a part missing: named at the top and after the summary, its tests skipped loudly, ending "N passed, N failed"; under CI=true they fail', async () => {
  const file = 'test/ports/rate-limit-redis.test.ts';
  const env = { PATH: bin('empty-run'), MARKETKIT_INSTALL_PARTS: '0' };
  const skipped = await run('scripts/test.mjs', [file], env);
  assert.equal(skipped.code, 0, skipped.stdout + skipped.stderr);
  const lines = skipped.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^test parts: \d+ missing:$/);
  const notice = lines.slice(0, lines.findIndex((line) => !line.startsWith('test parts:') && !line.startsWith('  ')));
  assert.ok(notice.some((line) => line.startsWith('  redis-server: missing')), skipped.stdout);
  assert.match(skipped.stdout, /﹣ .* # SKIPPED LOUDLY, did not run: redis-server is missing \(apt-get install -y redis-server/);
  assert.match(skipped.stdout, /ℹ skipped [1-9]\d*\nℹ todo 0/, 'the runner counts them skipped');
  assert.deepEqual(lines.slice(-notice.length - 1, -1), notice, 'the same notice again after the summary');
  assert.equal(lines.at(-1), '0 passed, 0 failed');

  const ci = await run('scripts/test.mjs', [file], { ...env, CI: 'true' });
  assert.equal(ci.code, 1);
  assert.match(ci.stdout, /This test needs redis-server, which is not here/);
  assert.match(ci.stdout.trimEnd().split('\n').at(-1)!, /^0 passed, [1-9]\d* failed$/);
});

test('every test file the table names is there', () => {
  for (const part of parts) for (const file of part.tests) assert.ok(existsSync(join(root, file)), `${part.name}: ${file}`);
});
