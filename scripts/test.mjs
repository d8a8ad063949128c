// `npm test`: the parts first (scripts/test-parts.mjs: installs what is missing when it can, names
// what it cannot), then tsc beside every test/*/*.test.ts in node's test runner; `npm test -- <files>`
// runs the parts and then only those files, without tsc (as a file is run by hand). When a part is
// missing, the run names it again after the runner's summary and ends with `N passed, N failed`;
// otherwise the runner's summary is the last thing printed. Exits non-zero when tsc or a test
// fails, or when a part is missing under CI=true.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ensureParts, missingReport } from './test-parts.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

const missing = ensureParts();
const report = missingReport(missing);
for (const line of report) console.log(line);
const partsFailed = missing.length > 0 && process.env.CI === 'true';

const named = process.argv.slice(2);
// The type check runs beside the tests (a minute of one core, not a minute of the run); its errors
// print as they come, and the run fails at its end when it found any.
const typesChecked = named.length > 0 ? Promise.resolve(0) : new Promise((resolve) => {
  const tsc = spawn(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', '.'], { cwd: root, stdio: 'inherit' });
  tsc.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
});
/** Exits with the runner's failure, or the type check's: whichever failed. */
async function finish(failed) {
  const types = await typesChecked;
  if (types !== 0) console.log('tsc -p . found type errors (printed above): the run fails.');
  process.exit(failed || types !== 0 ? 1 : 0);
}

const files = named.length > 0 ? named : readdirSync(join(root, 'test'))
  .filter((dir) => statSync(join(root, 'test', dir)).isDirectory())
  .flatMap((dir) => readdirSync(join(root, 'test', dir)).filter((name) => name.endsWith('.test.ts')).map((name) => `test/${dir}/${name}`))
  .sort();
const args = ['--import', 'tsx', '--test', '--test-reporter=spec', ...files];

// The `marketkit` command the tests spawn (hundreds of times) is the CLI's sources bundled once, now,
// into one file (about 0.6 s a start under load, against 2.5 s through tsx, which loads each source
// file): built from the checkout this run tests, so never stale. test/fixtures/cli.ts takes it from
// MARKETKIT_TEST_CLI; a test file run by hand, without it, spawns the sources through tsx.
const { buildSync } = require('esbuild');
// Named by the checkout, so that two checkouts sharing one node_modules (git worktrees) keep their own.
const cliBundle = join(root, 'node_modules', '.cache', 'marketkit-test-cli', `${createHash('sha256').update(root).digest('hex').slice(0, 16)}.mjs`);
buildSync({ entryPoints: [join(root, 'cli', 'main.ts')], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: cliBundle, logLevel: 'warning' });
process.env.MARKETKIT_TEST_CLI = cliBundle;

if (report.length === 0) {
  const runner = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
  runner.once('exit', (code, signal) => finish((code ?? (signal ? 1 : 0)) !== 0));
} else {
  // The output passes through to count the summary's pass and fail lines for the closing line.
  const env = process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env;
  const runner = spawn(process.execPath, args, { cwd: root, env, stdio: ['inherit', 'pipe', 'inherit'] });
  const counts = { pass: 0, fail: 0, cancelled: 0 };
  let tail = '';
  runner.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    const lines = (tail + chunk).split('\n');
    tail = lines.pop();
    for (const line of lines) {
      const count = /^ℹ (pass|fail|cancelled) (\d+)$/.exec(line.replace(/\x1b\[[0-9;]*m/g, '').trim());
      if (count) counts[count[1]] = Number(count[2]);
    }
  });
  runner.once('close', (code, signal) => {
    const failed = code !== 0 || signal !== null;
    console.log('');
    for (const line of report) console.log(line);
    console.log(`${counts.pass} passed, ${Math.max(counts.fail + counts.cancelled, failed ? 1 : 0)} failed`);
    finish(failed || partsFailed);
  });
}
