import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test as plainTest } from 'node:test';
import { startCliServer, type ServerProcess } from '../fixtures/cli.js';
import { fixtureOnlyRows, installedSuiteVersion, judge, revisions, runOfficialSuite, suiteVersion } from '../fixtures/mcp-official-suite.js';
import { needs, partPath } from '../fixtures/parts.js';

// The official MCP conformance suite against `marketkit serve` as a user starts it, for both
// revisions the endpoint serves: every check passes but the fixture-only ones (docs/mcp.md).
const { test, before } = needs('node22');

let server: ServerProcess;
const dataDir = mkdtempSync(join(tmpdir(), 'marketkit-mcp-suite-data-'));

before(async () => {
  // The suite's runs call the endpoint without a token a few hundred times a minute, past the
  // default budget of unauthenticated MCP calls (docs/mcp.md, "The official conformance suite").
  server = await startCliServer(['--data-dir', dataDir, '--rate-limit-mcp-unauthenticated', '100000/60']);
});

after(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

for (const revision of revisions) {
  test(`the official suite's ${revision} checks pass, but for the fixture-only ones that docs/mcp.md lists`, async (t) => {
    assert.equal(installedSuiteVersion, suiteVersion, `the fixture-only list was made with the suite ${suiteVersion}: run it with ${installedSuiteVersion} and update the list`);
    const run = await runOfficialSuite(partPath('node22'), `${server.info.url}/api/mcp`, revision);
    const counts = new Map<string, number>();
    for (const check of run.checks) counts.set(check.status, (counts.get(check.status) ?? 0) + 1);
    t.diagnostic(`${revision}: ${run.scenarios.length} scenarios, ${run.ms} ms; ${[...counts].map(([status, n]) => `${status} ${n}`).join(', ')}`);
    for (const warning of run.checks.filter((check) => check.status === 'WARNING')) t.diagnostic(`warning ${warning.scenario}:${warning.id}: ${(warning.message ?? 'no message').slice(0, 160)}`);
    assert.ok(run.scenarios.length > 20 && new Set(run.checks.map((check) => check.scenario)).size === run.scenarios.length, `every scenario reported its checks:\n${run.output.slice(-3000)}`);
    const { unexpected, stale } = judge(run, revision);
    assert.deepEqual(unexpected.map((check) => `${check.scenario}:${check.id}: ${check.message}`), [], 'failed checks outside the fixture-only list');
    assert.deepEqual(stale, [], 'fixture-only entries that no longer fail: take them off the list (test/fixtures/mcp-official-suite.ts and docs/mcp.md)');
  });
}

plainTest('docs/mcp.md lists the fixture-only checks of the official suite, row for row, each with why', () => {
  const doc = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');
  const start = doc.indexOf('## The official conformance suite');
  // To the next heading: later sections have tables of their own (the local process's tools).
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  assert.deepEqual(rows, fixtureOnlyRows(), 'the table in docs/mcp.md, "The official conformance suite", is fixtureOnlyRows() of test/fixtures/mcp-official-suite.ts');
});
