/**
 * The soak (`npm run soak`, docs/operations.md, "Soak and chaos") for 20 seconds with one kill, as
 * a smoke test: three instances behind haproxy on PostgreSQL, s3rver and Redis, mixed load at 70 %
 * of the measured peak, one instance SIGKILLed and started again. Every check must hold, and
 * traffic of every kind must have flowed (a soak that sent nothing would pass its checks too).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSoakOptions } from '../../soak/options.js';
import { runSoak } from '../../soak/main.js';
import { printReport } from '../../soak/report.js';
import { needs } from '../fixtures/parts.js';

const parts = needs('postgresql', 'haproxy', 'redis-server');

parts.test('20 seconds of soak with one instance killed: nothing acknowledged is lost, every upload is its digest, no 5xx outside the kill', { timeout: 180_000 }, async (t) => {
  const options = parseSoakOptions(['--duration', '20s', '--kill-every', '20s', '--peak-for', '2s']);
  assert.ok(options !== 'help');
  assert.equal(options.restarts, false, 'a run this short restarts no database');
  const lines: string[] = [];
  const report = await runSoak(options, (line) => lines.push(line));
  printReport(report, (line) => lines.push(line));
  t.diagnostic(lines.join('\n'));
  assert.deepEqual(report.windows.map((w) => w.what), ['SIGKILL instance b'], 'one kill');
  assert.deepEqual(report.lostWrites, []);
  assert.deepEqual(report.digestMismatches, []);
  assert.deepEqual(report.staleReads, []);
  assert.deepEqual(report.wrongAnswers, []);
  assert.deepEqual(report.idempotencyViolations, []);
  assert.deepEqual(report.failuresOutsideWindows, []);
  for (const op of ['read', 'list', 'create', 'update', 'idempotent', 'mcp', 'upload']) assert.ok((report.byOperation[op] ?? 0) >= 10, `${op}: ${report.byOperation[op] ?? 0} requests`);
  assert.ok(report.uploadsConfirmed >= 2, `uploads confirmed: ${report.uploadsConfirmed}`);
  assert.ok(report.ok);
});

test('npm run soak refuses what it cannot run, saying what to change', () => {
  assert.throws(() => parseSoakOptions(['--duration', 'soon']), /--duration must be a time such as 90s, 30m or 1h/);
  assert.throws(() => parseSoakOptions(['--fraction', '1.5']), /--fraction must be above 0 and at most 1/);
  assert.throws(() => parseSoakOptions(['--instances', '1']), /--instances must be a whole number from 2 to 8/);
  assert.throws(() => parseSoakOptions(['--rate', '0']), /--rate must be a number of operations a second above 0/);
  assert.throws(() => parseSoakOptions(['--restarts', '--no-restarts']), /contradict each other/);
  assert.throws(() => parseSoakOptions(['--minutes', '3']), /Unknown option '--minutes'/);
  assert.equal(parseSoakOptions(['--help']), 'help');
  const long = parseSoakOptions(['--duration', '30m']);
  assert.ok(long !== 'help' && long.restarts && long.durationMs === 1_800_000 && long.fraction === 0.7 && long.instances === 3);
});
