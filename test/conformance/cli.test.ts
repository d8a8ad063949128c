import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, startCliServer, tempDir } from '../fixtures/cli.js';
import { startCertifiedServer } from './harness.js';
import { jsonResponse } from '../../core/pipeline/request.js';

test('marketkit conformance --help lists every fixture flag and option', async () => {
  const { code, stdout } = await runCli(['conformance', '--help']);
  assert.equal(code, 0);
  for (const flag of ['--base-url', '--token ', '--token-second-seller', '--token-read-only', '--token-non-seller', '--token-restricted', '--token-suspended', '--token-no-payouts', '--token-revocable', '--published-asset', '--runs', '--seed', '--report', '--junit']) {
    assert.ok(stdout.includes(flag), `--help names ${flag}`);
  }
});

test('marketkit conformance without --token is a usage error that says what to give', async () => {
  const { code, stderr } = await runCli(['conformance', '--base-url', 'http://127.0.0.1:9']);
  assert.equal(code, 2);
  assert.match(stderr, /token is required/);
});

test('serve --fixtures prints a command line that certifies the server: exit 0, a JSON report and JUnit XML', async (t) => {
  const server = await startCliServer(['--memory', '--fixtures']);
  t.after(() => server.stop());
  const line = (server.info as unknown as { conformance: string }).conformance;
  assert.match(line, /^npx marketkit conformance --base-url http:\/\/127\.0\.0\.1:\d+ --token smcp_\S+ --token-second-seller smcp_\S+ .*--token-revocable smcp_\S+ --published-asset [0-9a-f-]{36} --rate-limit-probe \d+$/);
  const dir = tempDir(t);
  const args = [...line.replace(/^npx marketkit /, '').split(' '), '--runs', '3', '--seed', '5', '--report', join(dir, 'report.json'), '--junit', join(dir, 'junit.xml')];
  const run = await runCli(args);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^ok {3}rest\.assets\.slug-conflict \(\d+ ms\)$/m, 'progress, one line per check');
  assert.match(run.stdout, /^PASS +ASSET-CREATE-SLUG-CONFLICT$/m, 'the summary table');
  assert.match(run.stdout, /CERTIFIED: every certified requirement passed/);
  assert.match(run.stdout, /^PASS +GEN-RATE-LIMIT-429$/m, 'the rate-limit check reached serve’s read limit with the read-only token');
  const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
  assert.equal(report.suiteVersion, '1.1.0');
  assert.equal(report.contractVersion, '1.0.0');
  assert.equal(report.seed, 5);
  assert.equal(report.ok, true);
  assert.ok(report.requirements.length > 80);
  // Upload URLs live two hours on serve: the expiry check says why it cannot certify, and does not pass.
  const expiry = report.requirements.find((r: { id: string }) => r.id === 'UPLOAD-PUT-EXPIRED');
  assert.equal(expiry.status, 'not certified');
  assert.doesNotMatch(JSON.stringify(report), /smcp_[A-Za-z0-9]{20}/, 'no token in the report');
  const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
  assert.match(junit, /<testsuite name="marketkit conformance 1\.1\.0" tests="\d+" failures="0"/);
  assert.match(junit, /<testcase classname="marketkit\.conformance" name="UPLOAD-PUT-EXPIRED">\n\s+<skipped/);
});

test('pointed at a server that breaks a rule, the command exits 1 and names the requirement with its evidence', async (t) => {
  const server = await startCertifiedServer({
    mutant: async (request, real) => {
      const response = await real(request);
      const conflict = request.method === 'POST' && request.target === '/api/v1/assets' && response.status === 409;
      return conflict ? jsonResponse(200, { success: true }) : response;
    },
  });
  t.after(() => server.close());
  const run = await runCli(['conformance', '--base-url', server.url, '--token', server.fixtures.seller, '--runs', '0', '--only', 'rest.assets']);
  assert.equal(run.code, 1, run.stdout + run.stderr);
  assert.match(run.stdout, /^FAIL rest\.assets\.slug-conflict \(\d+ ms\) {2}broke ASSET-CREATE-SLUG-CONFLICT$/m);
  assert.match(run.stdout, /^FAIL +ASSET-CREATE-SLUG-CONFLICT +expected 409 CONFLICT$/m);
  assert.match(run.stdout, /ASSET-CREATE-SLUG-CONFLICT \(spec §4 rule 2; §7\): A duplicate slug on create is 409 CONFLICT\.\n {2}check: {4}rest\.assets\.slug-conflict\n {2}expected: 409 CONFLICT\n {2}request: {2}curl -X POST -H 'authorization: Bearer <token:seller>'/);
  assert.match(run.stdout, /^ {2}got: {6}200 \{"success":true\}$/m);
  assert.match(run.stdout, /^NOT CERTIFIED: 1 requirement\(s\) failed\.$/m);
  assert.match(run.stdout, /^N\/C +ASSET-CREATE-NOT-A-SELLER +rest\.assets\.not-a-seller: needs --token-non-seller$/m);
});
