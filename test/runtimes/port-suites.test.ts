/**
 * The storage port suite on bun:sqlite under real Bun and on node:sqlite under real Deno, and the
 * blob suite on filesystem blobs under each: `bun test` and `deno test` run the node:test file
 * test/runtimes/on-runtime/port-suites.ts. Then the suites that need servers, under each: storage
 * and studio on PostgreSQL, the rate-limiter suite on the PostgreSQL and Redis limiters
 * (test/runtimes/on-runtime/server-port-suites.ts), against a PostgreSQL and a redis-server this
 * test starts (test/fixtures/postgres.ts, redis.ts) and names to the runtime in
 * MARKETKIT_TEST_POSTGRES_URL and MARKETKIT_TEST_REDIS_URL. Every test of those suites must pass
 * by name on each runtime: none failed, skipped or missing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { statfsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, test, type TestContext } from 'node:test';
import { runScript } from '../fixtures/cli.js';
import { startPostgres } from '../fixtures/postgres.js';
import { startRedis } from '../fixtures/redis.js';
import { needs } from '../fixtures/parts.js';
import { registerServerSuites } from './on-runtime/server-suites.js';

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

const serverSuite = './test/runtimes/on-runtime/server-port-suites.ts';

/** The name of every test of the server suites, as the runtimes print them (registered here, never run). */
const serverTests: string[] = [];
registerServerSuites((name) => serverTests.push(name), { postgresUrl: 'postgres://unused', redisUrl: 'redis://unused' });

/** The tests of each suite that must be among them: a registration that lost a suite passes nothing vacuously. */
const suitePrefixes = ['runtime postgres storage port ', 'runtime postgres studio port ', 'runtime postgres rate-limiter port ', 'runtime redis rate-limiter port '];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Where the clusters live: Linux's shared-memory tmpfs when it has room to spare (each run makes
 * about 60 databases, some 750 MB with their WAL), else the temporary directory. Measured on the
 * shared 2-core machine with an ext4 disk: removing a run's cluster from the disk took 43-61 s
 * (the 20,000 files of 60 databases), from tmpfs 1-4 s; the suites themselves ran about as fast on
 * either (their time is CPU). The server is the same real PostgreSQL with fsync on; only its files
 * are in memory.
 */
function clusterParent(): string | undefined {
  try {
    const { bavail, bsize, type } = statfsSync('/dev/shm');
    const tmpfs = 0x01021994;
    return type === tmpfs && bavail * bsize >= 4 * 1024 ** 3 ? '/dev/shm' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts a PostgreSQL and a redis-server, runs `args` (a `bun test` or `deno test` of
 * server-port-suites.ts) with their URLs, stops both; resolves to the exit code and the output
 * without colour, whatever the exit code.
 */
async function onServers(t: TestContext, command: string, args: string[]): Promise<{ code: number; output: string }> {
  const started = Date.now();
  const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);
  const parent = clusterParent();
  const [postgres, redis] = await Promise.all([startPostgres(parent ? { parent } : {}), startRedis()]);
  t.diagnostic(`PostgreSQL (in ${parent ?? 'the temporary directory'}) and redis-server up in ${seconds(started)} s`);
  const ran = Date.now();
  try {
    const env = { ...process.env, NO_COLOR: '1', MARKETKIT_TEST_POSTGRES_URL: postgres.url, MARKETKIT_TEST_REDIS_URL: redis.url };
    const result = await run(command, args, { cwd: root, env, maxBuffer: 64 * 1024 * 1024, timeout: 420_000, killSignal: 'SIGKILL' }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code?: number | string; signal?: string; stdout?: string; stderr?: string }) => ({ code: typeof error.code === 'number' ? error.code : -1, stdout: error.stdout ?? '', stderr: `${error.stderr ?? ''}\n(${error.signal ?? error.code})` }),
    );
    return { code: result.code, output: plain(result.stdout + result.stderr) };
  } finally {
    t.diagnostic(`the suites ran in ${seconds(ran)} s`);
    const stopping = Date.now();
    await Promise.all([postgres.stop(), redis.stop()]);
    t.diagnostic(`both stopped in ${seconds(stopping)} s`);
  }
}

/** For a failed assertion's message: the lines of the tests that failed, then the end of the output. */
const tail = (output: string) => {
  const failed = output.split('\n').filter((line) => /^\(fail\) |\.\.\. FAILED/.test(line));
  return `${failed.length ? `failed:\n${[...new Set(failed)].join('\n')}\n\n` : ''}${output.slice(-6_000)}`;
};

test('the server suites register every suite, each with its tests', () => {
  for (const prefix of suitePrefixes) assert.ok(serverTests.filter((name) => name.startsWith(prefix)).length >= 10, `${prefix}: ${serverTests.length} tests in all`);
});

// Bun and Deno at once, each on servers of its own: on two cores, both finish in about the time of the slower.
// Deno needs only the network (to the servers) and the environment (the URLs; node-postgres reads its PG* defaults),
// no file access. --no-check: `tsc -p .` checks these sources; Deno checking them again costs seconds of CPU and tests nothing here.
describe('the suites that need servers', { concurrency: 2, skip: needs('postgresql', 'redis-server').skip }, () => {
  test('on Bun, the storage and studio suites pass on PostgreSQL and the rate-limiter suite on the PostgreSQL and Redis limiters', { timeout: 480_000 }, async (t) => {
    const [bun] = runScript('bun', serverSuite);
    const { code, output } = await onServers(t, bun!, ['test', serverSuite]);
    assert.match(output, /\(pass\) runtime servers: this is Bun, and node-postgres and ioredis reach the servers from it/, tail(output));
    for (const name of serverTests) assert.match(output, new RegExp(`^\\(pass\\) ${escape(name)} \\[`, 'm'), `not passed on Bun: ${name}\n${tail(output)}`);
    assert.match(output, new RegExp(`^ ${serverTests.length + 1} pass$`, 'm'), tail(output));
    assert.match(output, /^ 0 fail$/m, tail(output));
    assert.doesNotMatch(output, /\((fail|skip|todo)\)/, tail(output));
    assert.equal(code, 0, tail(output));
  });

  test('on Deno, the storage and studio suites pass on PostgreSQL and the rate-limiter suite on the PostgreSQL and Redis limiters', { timeout: 480_000 }, async (t) => {
    const [deno] = runScript('deno', serverSuite);
    const { code, output } = await onServers(t, deno!, ['test', '--no-check', '--unstable-sloppy-imports', '--allow-env', '--allow-net=127.0.0.1', serverSuite]);
    assert.match(output, /runtime servers: this is Deno, and node-postgres and ioredis reach the servers from it \.\.\. ok/, tail(output));
    for (const name of serverTests) assert.match(output, new RegExp(`^${escape(name)} \\.\\.\\. ok`, 'm'), `not passed on Deno: ${name}\n${tail(output)}`);
    assert.match(output, new RegExp(`^ok \\| ${serverTests.length + 1} passed \\| 0 failed`, 'm'), tail(output));
    assert.doesNotMatch(output, /\.\.\. (FAILED|ignored)/, tail(output));
    assert.equal(code, 0, tail(output));
  });
});
