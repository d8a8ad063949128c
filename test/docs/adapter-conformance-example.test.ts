import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'node:test';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

test('docs/examples/adapter-conformance.test.ts runs both port suites with node:test, and they pass', async () => {
  // Without the variable by which a test runner recognizes its own children, so that it reports in TAP.
  const { NODE_TEST_CONTEXT: _runner, ...env } = process.env;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', 'docs/examples/adapter-conformance.test.ts'], { cwd: root, env });
  assert.match(stdout, /^ok \d+ - counting: storage port atomicity: of 50 concurrent creates with one slug exactly one is created$/m);
  assert.match(stdout, /^ok \d+ - fs: blob port atomicity: a reader during a slow put sees the old object or the whole new one$/m);
  assert.match(stdout, /^# fail 0$/m);
  assert.doesNotMatch(stdout, /^not ok/m);
});
