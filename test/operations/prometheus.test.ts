/**
 * A real Prometheus (Debian's 2.42) scraping three `marketkit serve --metrics-port` instances
 * behind haproxy on one PostgreSQL, every second, while a load runs through the balancer and
 * straight to each instance. Asked through its HTTP API: the request count by route is exactly the
 * requests sent, per instance and summed; the webhook backlog is the deliveries queued; the `up`
 * series of an instance killed with SIGKILL goes to 0. The shipped alerting rules pass
 * `promtool check rules` and load in that Prometheus.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { keys, startCli, tempDir, type CliProcess } from '../fixtures/cli.js';
import { freePort, startHaproxy } from '../fixtures/haproxy.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { prometheusBinaries, startPrometheus } from '../fixtures/prometheus.js';
import { needs } from '../fixtures/parts.js';

const { before, test } = needs('postgresql', 'haproxy', 'prometheus');

const root = new URL('../../', import.meta.url).pathname;
const rules = join(root, 'deploy/prometheus/marketkit-alerts.yml');

let cluster: PostgresCluster;
before(async () => {
  cluster = await startPostgres();
});
after(() => cluster?.stop());

test('promtool check rules accepts the shipped alerting rules', () => {
  const checked = spawnSync(join(prometheusBinaries(), 'promtool'), ['check', 'rules', rules], { encoding: 'utf8' });
  assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
  assert.match(checked.stdout, /SUCCESS: \d+ rules found/);
});

async function send(url: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

test('Prometheus scrapes three instances behind haproxy: request counts exact per instance and summed, the webhook backlog, up going to 0 for a killed instance', async (t) => {
  const started = Date.now();
  const url = await cluster.createDatabase();
  const dir = tempDir(t);
  const env = await keys();
  const ports = await Promise.all([freePort(), freePort(), freePort()]);
  const metricsPorts = await Promise.all([freePort(), freePort(), freePort()]);
  const lb = await startHaproxy(ports.map((port) => `127.0.0.1:${port}`));
  t.after(() => lb.stop());
  const instances: CliProcess[] = await Promise.all(
    ports.map((port, i) =>
      startCli(
        ['serve', '--json', '--host', '127.0.0.1', '--port', String(port), '--metrics-port', String(metricsPorts[i]), '--database-url', url, '--blobs', 'fs', '--data-dir', dir,
          // Nothing is delivered, so the backlog is exactly what was queued; the endpoint is local.
          '--no-webhook-delivery', '--webhooks-allow-local'],
        (out) => out.includes('\n'),
        env,
      ),
    ),
  );
  t.after(() => Promise.all(instances.map((one) => one.stop('SIGKILL'))));
  const token: string = instances.map((one) => JSON.parse(one.stdout().split('\n')[0]!).dev_seller.token).find(Boolean);
  const targets = metricsPorts.map((port) => `127.0.0.1:${port}`);
  const prometheus = await startPrometheus({ targets, ruleFiles: [rules] });
  t.after(() => prometheus.stop());
  await lb.allUp();
  await prometheus.until('up{job="marketkit"} == 1', (found) => found.length === 3);
  const ready = Date.now();

  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const asset = await send(`${lb.url}/api/v1/assets`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'Scraped', slug: 'scraped' }) });
  const endpoint = await send(`${lb.url}/api/v1/webhooks`, { method: 'POST', headers: auth, body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', event_types: ['webhook.test'] }) });
  // The load: GET /assets/{id} through the balancer by 4 workers, and GET /me straight to each instance a known number of times.
  // Enough to last a few scrapes (one a second).
  const throughBalancer = 600;
  const direct = [3, 5, 7];
  const tests = 4;
  let next = 0;
  const worker = async () => {
    while (next < throughBalancer) {
      next++;
      await send(`${lb.url}/api/v1/assets/${asset.id}`, { headers: auth });
    }
  };
  await Promise.all([
    ...Array.from({ length: 4 }, worker),
    ...ports.map(async (port, i) => {
      for (let k = 0; k < direct[i]!; k++) await send(`http://127.0.0.1:${port}/api/v1/me`, { headers: auth });
    }),
    (async () => {
      for (let k = 0; k < tests; k++) await send(`${lb.url}/api/v1/webhooks/${endpoint.id}/test`, { method: 'POST', headers: auth });
    })(),
  ]);
  const loaded = Date.now();

  const count = (route: string, status: string) => `http_server_request_duration_seconds_count{job="marketkit", http_route="${route}", http_response_status_code="${status}", http_request_method="GET"}`;
  const byInstance = await prometheus.until(`sum by (instance) (${count('/api/v1/me', '200')})`, (found) => found.reduce((n, s) => n + s.value, 0) === 15);
  assert.deepEqual(Object.fromEntries(byInstance.map((s) => [s.metric.instance, s.value])), Object.fromEntries(targets.map((target, i) => [target, direct[i]])));
  const summed = await prometheus.until(`sum(${count('/api/v1/assets/{id}', '200')})`, (found) => found[0]?.value === throughBalancer);
  assert.equal(summed[0]!.value, throughBalancer);
  // Round robin spread them: every instance served some, and their counts add up to exactly what was sent.
  const spread = await prometheus.query(`sum by (instance) (${count('/api/v1/assets/{id}', '200')})`);
  assert.equal(spread.length, 3);
  assert.ok(spread.every((s) => s.value > 0), JSON.stringify(spread));
  // No raw path or id in any series of any metric.
  const series = await prometheus.api(`/api/v1/series?match[]=${encodeURIComponent('{job="marketkit"}')}`);
  assert.ok(!JSON.stringify(series).includes(asset.id), 'no listing id is a label value');

  // The backlog is the storage's: every instance reports the deliveries queued, nothing delivers them.
  const backlog = await prometheus.until('marketkit_webhook_backlog{job="marketkit"}', (found) => found.length === 3 && found.every((s) => s.value === tests));
  assert.equal(backlog.length, 3);
  await prometheus.until('max(marketkit_webhook_oldest_due_age_seconds{job="marketkit"})', (found) => (found[0]?.value ?? 0) > 0);
  const pool = await prometheus.query('sum by (instance) (marketkit_pg_pool_connections{job="marketkit"})');
  assert.ok(pool.length === 3 && pool.every((s) => s.value >= 1), `every instance has a pool: ${JSON.stringify(pool)}`);

  // docs/operations.md's PromQL examples, asked of this Prometheus as an operator would: each is
  // answered, and those whose data the load made answer with it.
  const examples = [...readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8').matchAll(/```promql\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
  const answers = new Map<string, Awaited<ReturnType<typeof prometheus.query>>>();
  for (const example of examples) answers.set(example, await prometheus.query(example));
  const answerTo = (part: string) => [...answers].find(([example]) => example.includes(part))?.[1] ?? assert.fail(`docs/operations.md has an example with ${part}`);
  assert.ok(answerTo('histogram_quantile(0.99').length > 0, 'the p99 example answers by route');
  assert.deepEqual(answerTo('sum by (instance) (rate(http_server_request_duration_seconds_count{job="marketkit"}[1m]))').map((s) => s.metric.instance).sort(), [...targets].sort(), 'requests per second, per instance');
  assert.equal(answerTo('max(marketkit_webhook_backlog')[0]?.value, tests, 'the backlog example');
  assert.ok((answerTo('max(marketkit_webhook_oldest_due_age_seconds')[0]?.value ?? 0) > 0, 'the oldest due delivery has waited');

  // The rules loaded and are evaluated.
  const groups = (await prometheus.api('/api/v1/rules')).groups as { name: string; rules: { name: string; health: string }[] }[];
  const loadedRules = groups.flatMap((g) => g.rules);
  assert.ok(loadedRules.length >= 7 && loadedRules.every((r) => r.health !== 'err'), JSON.stringify(loadedRules.map((r) => [r.name, r.health])));

  await instances[2]!.stop('SIGKILL');
  const killed = Date.now();
  await prometheus.until(`up{job="marketkit", instance="${targets[2]}"}`, (found) => found[0]?.value === 0, 10_000);
  const up = await prometheus.query('up{job="marketkit"}');
  assert.deepEqual(Object.fromEntries(up.map((s) => [s.metric.instance, s.value])), { [targets[0]!]: 1, [targets[1]!]: 1, [targets[2]!]: 0 });
  const down = await prometheus.query(examples.find((example) => example.startsWith('up{job="marketkit"} == 0'))!);
  assert.deepEqual(down.map((s) => s.metric.instance), [targets[2]], "the example for an instance not answering names the killed one");
  t.diagnostic(`started in ${ready - started} ms, load ${loaded - ready} ms, up=0 ${Date.now() - killed} ms after SIGKILL`);
});
