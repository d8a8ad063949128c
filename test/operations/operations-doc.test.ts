/**
 * docs/operations.md tells the truth about the metrics: its table names exactly the metrics a
 * marketplace exposes, with their types; every PromQL example, alerting rule and Grafana panel
 * refers only to metrics that exist (or Prometheus's own `up`), and each query parses
 * (`promtool check rules` over them as recording rules); the dashboard is JSON Grafana can import.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import { createMarketplace } from '../../core/marketplace.js';
import { parseMetrics } from '../fixtures/metrics-text.js';
import { needs, partPath } from '../fixtures/parts.js';

const prometheus = needs('prometheus');
const root = new URL('../../', import.meta.url).pathname;
const doc = readFileSync(join(root, 'docs/operations.md'), 'utf8');
const dashboard = JSON.parse(readFileSync(join(root, 'deploy/grafana/marketkit-dashboard.json'), 'utf8'));
const rules = readFileSync(join(root, 'deploy/prometheus/marketkit-alerts.yml'), 'utf8');

async function exposed(): Promise<Map<string, string>> {
  const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
  return parseMetrics(await marketplace.metrics()).types;
}

const promqlExamples = [...doc.matchAll(/```promql\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
const panelQueries: string[] = dashboard.panels.flatMap((panel: { targets: { expr: string }[] }) => panel.targets.map((target) => target.expr));
const ruleQueries = [...rules.matchAll(/expr: (?:\|\n((?: {10}.*\n)+)|(.*)\n)/g)].map((m) => (m[1] ?? m[2]!).trim());

/** The metric names a query uses: identifiers followed by `{` or standing alone, that are not functions or keywords. */
function metricNames(query: string): string[] {
  const withoutStrings = query.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/\{[^}]*\}/g, '{}').replace(/\[[^\]]*\]/g, '');
  const words = [...withoutStrings.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]);
  const notMetrics = new Set(['sum', 'max', 'min', 'avg', 'by', 'without', 'rate', 'increase', 'histogram_quantile', 'le', 'vector', 'or', 'and', 'unless', 'http_route', 'instance', 'tool', 'outcome', 'class', 'area', 'state', 'job']);
  return words.filter((word) => !notMetrics.has(word) && !/^\d/.test(word));
}

test('the table in docs/operations.md names exactly the metrics exposed, with their types', async () => {
  const types = await exposed();
  const table = [...doc.matchAll(/^\| `([a-z_:]+)` \| (counter|gauge|histogram) \|/gm)].map((m) => [m[1]!, m[2]!] as const);
  assert.deepEqual(new Map(table), types);
});

test('the PromQL examples, the alerting rules and the dashboard use only metrics that exist', async () => {
  const types = await exposed();
  const series = new Set(['up']);
  for (const [name, type] of types) {
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) series.add(`${name}${suffix}`);
    else series.add(name);
  }
  assert.ok(promqlExamples.length >= 6 && panelQueries.length >= 10 && ruleQueries.length >= 7, `${promqlExamples.length} examples, ${panelQueries.length} panels, ${ruleQueries.length} rules`);
  for (const query of [...promqlExamples, ...panelQueries, ...ruleQueries]) {
    const names = metricNames(query);
    assert.ok(names.length > 0, `a metric in ${query}`);
    for (const name of names) assert.ok(series.has(name), `${name} (in ${query}) is a series MarketKit exposes`);
  }
  // Every metric has a panel.
  for (const name of types.keys()) assert.ok(panelQueries.some((query) => query.includes(name)) || name === 'marketkit_build_info', `a dashboard panel shows ${name}`);
});

test('the dashboard is an importable Grafana dashboard', () => {
  assert.equal(dashboard.title, 'MarketKit');
  assert.ok(Array.isArray(dashboard.panels) && dashboard.panels.length > 0);
  const ids = dashboard.panels.map((panel: { id: number }) => panel.id);
  assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
  for (const panel of dashboard.panels) {
    assert.equal(panel.datasource.type, 'prometheus');
    assert.ok(panel.gridPos && panel.targets.length > 0 && panel.title);
  }
  assert.deepEqual(dashboard.__inputs.map((input: { name: string }) => input.name), ['DS_PROMETHEUS']);
});

test('every query parses: promtool check rules over them as recording rules', { skip: prometheus.skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-promql-'));
  try {
    const file = join(dir, 'queries.yml');
    const queries = [...promqlExamples, ...panelQueries];
    const lines = ['groups:', '  - name: queries', '    rules:', ...queries.flatMap((query, i) => [`      - record: marketkit:query_${i}`, `        expr: ${JSON.stringify(query.replace(/\s*\n\s*/g, ' '))}`])];
    writeFileSync(file, `${lines.join('\n')}\n`);
    const checked = spawnSync(join(partPath('prometheus'), 'promtool'), ['check', 'rules', file], { encoding: 'utf8' });
    assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
