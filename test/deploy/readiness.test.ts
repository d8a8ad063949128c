/**
 * `/livez` and `/readyz` of `marketkit serve` on PostgreSQL, behind haproxy checking `/readyz` (the
 * configuration docs/deploy.md shows, test/fixtures/haproxy.ts): with the database stopped
 * (`pg_ctl stop`), `/readyz` answers 503 naming the stores that did not answer and haproxy takes
 * every instance out; `/livez` stays 200; with the database back, both instances are ready and in
 * rotation again. All real: PostgreSQL 15, haproxy 2.6, the CLI as child processes.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { keys, startCli, tempDir, type CliProcess } from '../fixtures/cli.js';
import { freePort, startHaproxy } from '../fixtures/haproxy.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { needs } from '../fixtures/parts.js';

const { before, test } = needs('postgresql', 'haproxy');

let cluster: PostgresCluster;
before(async () => {
  cluster = await startPostgres();
});
after(() => cluster?.stop());

async function get(url: string): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** Polls until `check` holds (rejects with the last value seen after `timeoutMs`). */
async function until<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('/readyz goes 503 naming storage and limiter while PostgreSQL is stopped, haproxy takes the instances out and back; /livez stays 200', async (t) => {
  const url = await cluster.createDatabase();
  const dir = tempDir(t);
  const env = await keys();
  const ports = await Promise.all([freePort(), freePort()]);
  const lb = await startHaproxy(ports.map((port) => `127.0.0.1:${port}`));
  t.after(() => lb.stop());
  const instances: CliProcess[] = await Promise.all(
    ports.map((port) => startCli(['serve', '--json', '--host', '127.0.0.1', '--port', String(port), '--database-url', url, '--blobs', 'fs', '--data-dir', dir], (out) => out.includes('\n'), env)),
  );
  t.after(() => Promise.all(instances.map((one) => one.stop('SIGKILL'))));
  const direct = ports.map((port) => `http://127.0.0.1:${port}`);
  await lb.allUp();

  for (const base of direct) {
    const live = await get(`${base}/livez`);
    assert.deepEqual([live.status, live.body], [200, { status: 'ok' }]);
    const ready = await get(`${base}/readyz`);
    assert.deepEqual([ready.status, ready.body], [200, { status: 'ok', checks: { storage: 'ok', blobs: 'ok', limiter: 'ok' } }]);
    assert.equal(ready.headers.get('cache-control'), 'no-store');
  }
  assert.equal((await get(`${lb.url}/readyz`)).status, 200, 'the probes answer through the balancer too');

  await cluster.pause();
  try {
    for (const base of direct) {
      const down = await until(`${base}/readyz answering 503`, () => get(`${base}/readyz`), (answer) => answer.status === 503);
      assert.equal(down.body.code, 'SERVICE_UNAVAILABLE');
      assert.match(down.body.error, /storage/);
      // The blobs are files on this machine: they still answer. The limiter counts in the database.
      assert.deepEqual(down.body.checks, { storage: 'error', blobs: 'ok', limiter: 'error' });
      assert.equal(down.headers.get('retry-after'), '5');
      assert.equal((await get(`${base}/livez`)).status, 200, 'the process still serves');
    }
    const states = await until('haproxy taking both instances out', () => lb.states(), (found) => Object.values(found).every((state) => state.startsWith('DOWN')));
    assert.deepEqual(Object.keys(states).sort(), ['a', 'b']);
  } finally {
    await cluster.resume();
  }
  for (const base of direct) await until(`${base}/readyz answering 200 again`, () => get(`${base}/readyz`), (answer) => answer.status === 200);
  await lb.allUp();
  // Nothing else changed: the seed's health answers as before.
  assert.equal((await get(`${direct[0]}/api/v1/health`)).body.status, 'ok');
});
