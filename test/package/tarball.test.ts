/**
 * The package as a user gets it (issue #19, "Packaging and first run"): `npm pack` once (prepack
 * builds), the tarball installed in a fresh app in a temp dir (a package.json as `npm init -y`
 * writes it: CommonJS), and each check made through that install. Slow: the pack and the install
 * are shared by every test here; each test reports its wall time.
 *
 * Other Node versions: set MARKETKIT_TEST_NODES to node binaries (separated by the path delimiter)
 * and the CommonJS and SQLite checks run on each of them too. What cannot run here is said in the
 * output (NOT RUN HERE), never skipped silently.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test, type TestContext } from 'node:test';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const quiet = ['--no-audit', '--no-fund', '--loglevel=error'];
const subpaths = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).exports as Record<string, unknown>)
  .filter((subpath) => subpath !== './package.json')
  .map((subpath) => `marketkit${subpath.slice(1)}`);

/** This Node, and the other binaries MARKETKIT_TEST_NODES names. */
const nodes = [process.execPath, ...(process.env.MARKETKIT_TEST_NODES ?? '').split(delimiter).filter(Boolean)];

let work: string;
let app: string;
let tarball: string;
const startedAt = Date.now();

function say(t: TestContext, line: string): void {
  t.diagnostic(line);
  console.log(`# ${line}`);
}

function timed(t: TestContext, since: number): void {
  say(t, `wall time ${((Date.now() - since) / 1000).toFixed(1)} s`);
}

async function nodeVersion(node: string): Promise<string> {
  return (await run(node, ['--version'])).stdout.trim();
}

/** Whether `node` has node:sqlite without a flag (Node 22.13+). */
async function hasNodeSqlite(node: string): Promise<boolean> {
  return run(node, ['-e', "require('node:sqlite')"]).then(() => true, () => false);
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'marketkit-tarball-'));
  app = join(work, 'app');
  mkdirSync(app);
  // prepack builds dist/ (scripts/build.mjs), so the tarball is always of the current sources.
  const { stdout } = await run(npm, ['pack', '--json', '--pack-destination', work, ...quiet], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  // The build's own output comes first on the same stdout (with colour codes, which hold '['): npm's JSON is the array that starts a line.
  const start = stdout.search(/^\[\s*(\{|\])/m);
  assert.ok(start >= 0, `npm pack --json printed no JSON array:\n${stdout.slice(-2000)}`);
  const packed = JSON.parse(stdout.slice(start)) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, packed[0]!.filename);
  writeFileSync(join(work, 'files.json'), JSON.stringify(packed[0]!.files.map((file) => file.path)));
  // What `npm init -y` writes: no "type", so .js files are CommonJS.
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', main: 'index.js', license: 'ISC' }, null, 2));
  // --ignore-scripts: a dependency's install script must be found by reading, never by running it.
  await run(npm, ['install', '--ignore-scripts', ...quiet, tarball], { cwd: app, maxBuffer: 64 * 1024 * 1024 });
  console.log(`# packed and installed in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('item 1: package-lock.json is what `npm install --package-lock-only` writes (a fresh clone stays clean)', { timeout: 120_000 }, async (t) => {
  const since = Date.now();
  const copy = join(work, 'lock-check');
  mkdirSync(copy);
  cpSync(join(root, 'package.json'), join(copy, 'package.json'));
  cpSync(join(root, 'package-lock.json'), join(copy, 'package-lock.json'));
  await run(npm, ['install', '--package-lock-only', '--ignore-scripts', ...quiet], { cwd: copy });
  const committed = readFileSync(join(root, 'package-lock.json'), 'utf8');
  const written = readFileSync(join(copy, 'package-lock.json'), 'utf8');
  assert.ok(written === committed, 'npm install would change package-lock.json: commit the lock that `npm install --package-lock-only` writes');
  timed(t, since);
});

test('item 2: a CommonJS app requires every subpath and runs the embedding guide (on each Node), and attw (node16 from CJS) and publint pass', { timeout: 300_000 }, async (t) => {
  const since = Date.now();
  writeFileSync(
    join(app, 'cjs.js'),
    `const http = require('node:http');
for (const name of ${JSON.stringify(subpaths)}) {
  const module = require(name);
  if (Object.keys(module).length === 0) throw new Error(name + ' exports nothing');
}
// The embedding guide (docs/embedding/node-http.md), as CommonJS.
const { createMarketplace } = require('marketkit');
const { memoryStorage, memoryBlobs } = require('marketkit/adapters/memory');
const { nodeListener } = require('marketkit/bindings/node');
const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), siteUrl: 'http://127.0.0.1' });
const server = http.createServer(nodeListener(marketplace));
server.listen(0, '127.0.0.1', async () => {
  const response = await fetch('http://127.0.0.1:' + server.address().port + '/api/v1/health');
  console.log(JSON.stringify({ status: response.status, resolved: require.resolve('marketkit').replace(/\\\\/g, '/').split('/node_modules/marketkit/')[1] }));
  server.close();
});
`,
  );
  for (const node of nodes) {
    const version = await nodeVersion(node);
    const { stdout } = await run(node, ['cjs.js'], { cwd: app });
    const result = JSON.parse(stdout.trim()) as { status: number; resolved: string };
    assert.equal(result.status, 200, `${version}: the guide serves a request`);
    say(t, `${version}: require('marketkit') loads ${result.resolved}`);
    // Where Node can require ESM, the CommonJS build is still what it gets with that turned off.
    const canTurnOff = await run(node, ['--no-experimental-require-module', '-e', '0']).then(() => true, () => false);
    if (canTurnOff) {
      const off = JSON.parse((await run(node, ['--no-experimental-require-module', 'cjs.js'], { cwd: app })).stdout.trim()) as { status: number; resolved: string };
      assert.equal(off.status, 200, `${version} without require(esm): the CommonJS build serves a request`);
      assert.equal(off.resolved, 'dist/cjs/core/index.cjs', `${version} without require(esm) loads the CommonJS build`);
      say(t, `${version} --no-experimental-require-module: require('marketkit') loads ${off.resolved}`);
    }
  }
  if (nodes.length === 1) say(t, 'NOT RUN HERE: Node 20.0-20.18 and 22.0-22.11 themselves (set MARKETKIT_TEST_NODES to their binaries); the CommonJS build they load ran above with require(esm) turned off');

  const attw = join(root, 'node_modules/@arethetypeswrong/cli/dist/index.js');
  const checked = await run(process.execPath, [attw, tarball, '--profile', 'node16', '--format', 'json'], { maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout }) => ({ ok: true, stdout }),
    (error: { stdout: string }) => ({ ok: false, stdout: error.stdout }),
  );
  const problems = (JSON.parse(checked.stdout) as { analysis: { problems: { kind: string; entrypoint: string; resolutionKind: string }[] } }).analysis.problems.filter(
    (problem) => problem.resolutionKind !== 'node10',
  );
  assert.deepEqual(problems, [], 'attw --profile node16 finds no problem (node16 from CJS and from ESM, bundler)');
  assert.ok(checked.ok, 'attw exits 0');
  const publint = join(root, 'node_modules/publint/src/cli.js');
  const linted = await run(process.execPath, [publint, 'run', join(app, 'node_modules/marketkit'), '--pack', 'false', '--strict']).then(
    ({ stdout }) => ({ ok: true, stdout }),
    (error: { stdout: string; stderr: string }) => ({ ok: false, stdout: `${error.stdout}${error.stderr}` }),
  );
  assert.ok(linted.ok, `publint --strict: ${linted.stdout}`);
  timed(t, since);
});

test('item 3: a consumer of every subpath type-checks against the tarball with skipLibCheck false, under nodenext (ESM and CJS) and bundler', { timeout: 300_000 }, async (t) => {
  const since = Date.now();
  const types = join(app, 'types');
  mkdirSync(types);
  const imports = subpaths.map((name, i) => `import * as m${i} from '${name}';`).join('\n');
  const uses = `export const all = [${subpaths.map((_, i) => `m${i}`).join(', ')}];\n`;
  writeFileSync(join(types, 'esm.mts'), `${imports}\n${uses}import { createMarketplace } from 'marketkit';\nimport { memoryStorage, memoryBlobs } from 'marketkit/adapters/memory';\nexport const market = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });\n`);
  writeFileSync(join(types, 'cjs.cts'), `${subpaths.map((name, i) => `import m${i} = require('${name}');`).join('\n')}\n${uses}`);
  writeFileSync(join(types, 'bundler.ts'), `${imports}\n${uses}`);
  const typeRoots = [join(root, 'node_modules/@types')];
  // skipDefaultLibCheck: TypeScript's own lib files are not ours to check; every package's are.
  const base = { strict: true, skipLibCheck: false, skipDefaultLibCheck: true, noEmit: true, types: ['node'], typeRoots, target: 'ES2022', lib: ['ES2023', 'DOM'] };
  writeFileSync(join(types, 'tsconfig.nodenext.json'), JSON.stringify({ compilerOptions: { ...base, module: 'nodenext', moduleResolution: 'nodenext' }, files: ['esm.mts', 'cjs.cts'] }));
  writeFileSync(join(types, 'tsconfig.bundler.json'), JSON.stringify({ compilerOptions: { ...base, module: 'esnext', moduleResolution: 'bundler' }, files: ['bundler.ts'] }));
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  for (const config of ['tsconfig.nodenext.json', 'tsconfig.bundler.json']) {
    const result = await run(process.execPath, [tsc, '-p', join(types, config)], { cwd: app, maxBuffer: 16 * 1024 * 1024 }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    assert.equal(result, '', `${config}: the consumer compiles`);
  }
  timed(t, since);
});

test('item 5: no production dependency has an install script, and the reference page serves without swagger-ui-dist', { timeout: 120_000 }, async (t) => {
  const since = Date.now();
  const { stdout } = await run(npm, ['ls', '--omit=dev', '--all', '--parseable'], { cwd: app, maxBuffer: 16 * 1024 * 1024 });
  const installed = stdout.split('\n').filter((line) => line.includes('node_modules'));
  const withScripts = installed.filter((dir) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; scripts?: Record<string, string> };
    // npm runs `node-gyp rebuild` for a binding.gyp even without an install script.
    return ['preinstall', 'install', 'postinstall'].some((script) => manifest.scripts?.[script]) || existsSync(join(dir, 'binding.gyp'));
  });
  say(t, `${installed.length} packages installed with marketkit: ${installed.map((dir) => dir.split('node_modules/').pop()).join(', ')}`);
  assert.deepEqual(withScripts.map((dir) => dir.split('node_modules/').pop()), [], 'packages that would run a script at install');
  writeFileSync(
    join(app, 'reference.js'),
    `const { createMarketplace } = require('marketkit');
const { memoryStorage, memoryBlobs } = require('marketkit/adapters/memory');
const { nodeApiReference } = require('marketkit/bindings/node');
const m = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), siteUrl: 'http://127.0.0.1', apiReference: nodeApiReference() });
(async () => {
  const out = [];
  for (const path of ['/api/v1/docs', '/api/v1/docs/swagger-ui-bundle.js', '/api/v1/docs/swagger-ui.css']) {
    const response = await m.fetch(new Request('http://127.0.0.1' + path));
    out.push({ path, status: response.status, body: (await response.text()).slice(0, 2000) });
  }
  console.log(JSON.stringify(out));
})();
`,
  );
  const pages = JSON.parse((await run(process.execPath, ['reference.js'], { cwd: app })).stdout) as { path: string; status: number; body: string }[];
  for (const page of pages) assert.equal(page.status, 200, `${page.path} is served`);
  assert.match(pages[1]!.body, /install swagger-ui-dist/, 'the basic page of our own, which says how to get the interactive one');
  timed(t, since);
});

test('item 6: the package ships its LICENSE', (t) => {
  const files = JSON.parse(readFileSync(join(work, 'files.json'), 'utf8')) as string[];
  assert.ok(files.includes('LICENSE'), 'LICENSE is in the tarball');
  assert.match(readFileSync(join(app, 'node_modules/marketkit/LICENSE'), 'utf8'), /MIT License/);
  say(t, `${files.length} files in the tarball`);
});

/** Starts `marketkit serve --json` on a fresh data directory; resolves with its first line, or rejects with what it printed when it exits. */
async function serveOnce(node: string, args: string[]): Promise<{ url: string; stop: () => void } | { exitCode: number | null; output: string }> {
  const dataDir = mkdtempSync(join(work, 'data-'));
  const child = spawn(node, [join(app, 'node_modules/marketkit/bin/marketkit.js'), 'serve', '--json', '--port', '0', '--data-dir', dataDir, ...args], {
    cwd: app,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill(), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      const line = output.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolve({ url: (JSON.parse(line) as { url: string }).url, stop: () => child.kill() });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('exit', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, output });
    });
  });
}

test('item 4: marketkit serve picks its SQLite driver: node:sqlite where Node has it, better-sqlite3 where it is needed, --sqlite-driver to choose', { timeout: 300_000 }, async (t) => {
  const since = Date.now();
  const help = (await run(process.execPath, [join(app, 'node_modules/marketkit/bin/marketkit.js'), 'serve', '--help'], { cwd: app })).stdout;
  assert.match(help, /--sqlite-driver <name>/, 'serve --help lists --sqlite-driver');
  for (const node of nodes) {
    const version = await nodeVersion(node);
    if (await hasNodeSqlite(node)) {
      // No better-sqlite3 in the app yet: node:sqlite alone serves.
      const started = await serveOnce(node, []);
      assert.ok('url' in started, `${version}: serve starts on node:sqlite alone: ${'output' in started ? started.output : ''}`);
      const health = await fetch(`${started.url.replace(/\/$/, '')}/api/v1/health`);
      started.stop();
      assert.equal(health.status, 200);
      say(t, `${version}: serve ran on node:sqlite with no better-sqlite3 installed`);
    } else {
      const refused = await serveOnce(node, []);
      assert.ok('output' in refused, `${version}: without node:sqlite and better-sqlite3 serve cannot start`);
      assert.notEqual(refused.exitCode, 0);
      assert.match(refused.output, /npm install better-sqlite3/, 'it says what to install');
      assert.match(refused.output, /Node 22\.13/, 'and which Node needs nothing');
      const asked = await serveOnce(node, ['--sqlite-driver', 'node-sqlite']);
      assert.ok('output' in asked && /--sqlite-driver node-sqlite needs node:sqlite/.test(asked.output), `${version}: --sqlite-driver node-sqlite is refused with the reason`);
      say(t, `NOT RUN HERE on ${version}: serve on node:sqlite (needs Node 22.13+, or 22.12 with --experimental-sqlite); set MARKETKIT_TEST_NODES to such a binary to run it`);
    }
  }
  // better-sqlite3 where it is needed: the repository's build of it, linked into the app.
  symlinkSync(join(root, 'node_modules/better-sqlite3'), join(app, 'node_modules/better-sqlite3'), 'dir');
  for (const node of nodes) {
    const version = await nodeVersion(node);
    const native = await run(node, ['-e', "new (require('better-sqlite3'))(':memory:')"], { cwd: app }).then(() => true, () => false);
    if (!native) {
      say(t, `NOT RUN HERE on ${version}: better-sqlite3 (built for ${process.version}) does not load on this Node`);
      continue;
    }
    const args = (await hasNodeSqlite(node)) ? ['--sqlite-driver', 'better-sqlite3'] : [];
    const started = await serveOnce(node, args);
    assert.ok('url' in started, `${version}: serve starts on better-sqlite3: ${'output' in started ? started.output : ''}`);
    const health = await fetch(`${started.url.replace(/\/$/, '')}/api/v1/health`);
    started.stop();
    assert.equal(health.status, 200);
    say(t, `${version}: serve ran on better-sqlite3 ${args.length ? '(--sqlite-driver better-sqlite3)' : '(auto)'}`);
  }
  timed(t, since);
  console.log(`# whole file: ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
});
