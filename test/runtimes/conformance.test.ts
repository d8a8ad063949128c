/**
 * The conformance HTTP suite (conformance/, REST and MCP, with its model-based runs) against
 * MarketKit on real Node, Bun and Deno, each on its own SQLite driver and filesystem blobs and
 * served by its own binding: every runtime passes the same suite.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { runConformance, type ConformanceResult } from '../../conformance/index.js';
import { requirements } from '../../conformance/requirements.js';
import type { FixtureAccounts } from '../../conformance/fixture-accounts.js';
import { runScript, type Runtime } from '../fixtures/cli.js';
import { rateLimitProbe } from '../conformance/harness.js';

const root = new URL('../../', import.meta.url).pathname;
const drivers: Record<Runtime, string> = { node: 'better-sqlite3', bun: 'bun-sqlite', deno: 'node-sqlite' };

interface Served extends FixtureAccounts {
  url: string;
  runtime: Runtime;
  driver: string;
}

function failures(result: ConformanceResult): string {
  return result.requirements
    .filter((r) => r.status !== 'passed' && r.status !== 'not checked')
    .map((r) => `${r.id}: ${r.status} ${r.reason ?? JSON.stringify(r.evidence)}`)
    .join('\n');
}

for (const runtime of ['node', 'bun', 'deno'] as const) {
  test(`MarketKit on ${runtime} (${drivers[runtime]}, fs blobs) passes every requirement the conformance suite checks`, { timeout: 180_000 }, async (t) => {
    const [command, ...args] = runScript(runtime, join(root, 'test/runtimes/on-runtime/certified-server.ts'));
    const child = spawn(command!, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    t.after(() => child.kill('SIGTERM'));
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const served = await new Promise<Served>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the server on ${runtime} exited (${code}): ${stderr}`)));
      createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as Served));
    });
    assert.equal(served.runtime, runtime);
    assert.equal(served.driver, drivers[runtime]);

    const result = await runConformance({ baseUrl: served.url, fixtures: served.fixtures, publishedAssetId: served.publishedAssetId, rateLimitProbe, runs: 5, seed: 20261123 });
    assert.equal(result.summary.failed, 0, failures(result));
    assert.equal(result.summary.notCertified, 0, failures(result));
    const notChecked = result.requirements.filter((r) => r.status === 'not checked').map((r) => r.id);
    assert.deepEqual(notChecked, requirements.filter((r) => r.notChecked).map((r) => r.id), 'only the requirements the catalogue says cannot be checked black-box');
    assert.equal(result.ok, true);
    assert.doesNotMatch(stderr, /MARKETKIT INTERNAL ERROR/, 'no request was answered with INTERNAL_ERROR');
  });
}
