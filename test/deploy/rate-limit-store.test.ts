/**
 * `marketkit serve --rate-limit-store`: every instance counts against one budget, in the database
 * (the default with --database-url) or in Redis. Two serve processes each, real PostgreSQL 15 and
 * redis-server started by the test; the failed-authentication limit is the budget probed (small,
 * per client address, and answered 429 before any credential is checked).
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { runCli, startCliServer, tempDir, type ServerProcess } from '../fixtures/cli.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { startRedis, type RedisServer } from '../fixtures/redis.js';
import { needs } from '../fixtures/parts.js';

const { before, test } = needs('postgresql', 'redis-server');

let cluster: PostgresCluster;
let redis: RedisServer;
before(async () => {
  [cluster, redis] = await Promise.all([startPostgres(), startRedis()]);
});
after(async () => {
  await Promise.all([cluster?.stop(), redis?.stop()]);
});

async function secrets(): Promise<Record<string, string>> {
  const made = await runCli(['keys', '--json']);
  assert.equal(made.code, 0, made.stderr);
  const { signing_secret, session_key } = JSON.parse(made.stdout);
  return { MARKETKIT_SIGNING_SECRET: signing_secret, MARKETKIT_SESSION_KEY: JSON.stringify(session_key) };
}

/** Bad tokens sent in turn to each instance: the statuses, in order. */
async function guess(instances: ServerProcess[], times: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) {
    const response = await fetch(`${instances[i % instances.length]!.info.api}/me`, { headers: { authorization: `Bearer smcp_not_a_real_token_${i}` } });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

test('with --database-url, two instances share one failed-authentication budget in the database', async (t) => {
  const url = await cluster.createDatabase();
  const env = await secrets();
  const dir = tempDir(t);
  const args = ['--database-url', url, '--blobs', 'fs', '--data-dir', dir, '--failed-auth-limit', '3'];
  const first = await startCliServer(args, env);
  t.after(() => first.stop('SIGKILL'));
  const second = await startCliServer(args, env);
  t.after(() => second.stop('SIGKILL'));
  // Three failures in all, whichever instance saw them; then both refuse.
  assert.deepEqual(await guess([first, second], 6), [401, 401, 401, 429, 429, 429]);
});

test('--rate-limit-store redis://... shares the budget through Redis, even between in-memory instances', async (t) => {
  const args = ['--memory', '--rate-limit-store', redis.url, '--failed-auth-limit', '2'];
  const first = await startCliServer(args);
  t.after(() => first.stop('SIGKILL'));
  const second = await startCliServer(args);
  t.after(() => second.stop('SIGKILL'));
  assert.deepEqual(await guess([first, second], 4), [401, 401, 429, 429]);
  // Without the flag each in-memory instance counts alone: the same guesses get further.
  const alone = await startCliServer(['--memory', '--failed-auth-limit', '2']);
  t.after(() => alone.stop('SIGKILL'));
  assert.deepEqual(await guess([alone], 2), [401, 401]);
});

test('--rate-limit-store postgres needs a database; a store that is not postgres or redis:// is refused', async () => {
  const noDatabase = await runCli(['serve', '--memory', '--port', '0', '--rate-limit-store', 'postgres']);
  assert.equal(noDatabase.code, 2);
  assert.match(noDatabase.stderr, /--rate-limit-store postgres counts in the --database-url database/);
  const unknown = await runCli(['serve', '--memory', '--port', '0', '--rate-limit-store', 'memcached://x']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /rate-limit-store must be postgres .* or a redis:\/\//);
  const help = await runCli(['serve', '--help']);
  assert.match(help.stdout, /--rate-limit-store <store>/);
});
