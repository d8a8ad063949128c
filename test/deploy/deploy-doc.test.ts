/**
 * docs/deploy.md, run: every command of its sh blocks, in its order, through bash as an operator
 * types it (`npx marketkit` is the repository's bin/marketkit.js), with the settings of its table
 * in the environment, against a throwaway PostgreSQL 15 cluster and an s3rver bucket. Two
 * instances serve one marketplace: what one stores, issues or revokes holds on the other.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { runCli, tempDir } from '../fixtures/cli.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { s3rverCredentials, startS3Server, type S3Server } from '../fixtures/s3.js';
import { as } from '../fixtures/server.js';
import { needs } from '../fixtures/parts.js';

const { before, test } = needs('postgresql');

const root = new URL('../../', import.meta.url).pathname;
const doc = readFileSync(join(root, 'docs/deploy.md'), 'utf8');

/** The commands of the page's sh blocks, in order: what this test runs, and all of it. */
const documented = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) => block[1]!.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#')));

const commands = {
  keys: 'npx marketkit keys > marketkit.env',
  migrate: 'npx marketkit migrate',
  load: 'set -a; . ./marketkit.env; set +a',
  serve: 'npx marketkit serve --blobs s3',
  token: 'npx marketkit token create --account dev-seller --name ci --all-scopes',
  queue: 'npx marketkit admin queue',
};

/** `npx marketkit ...` as the published package runs it: its bin, here on the sources. */
const npx = `npx() { if [ "$1" != marketkit ]; then echo "npx: only marketkit here, not $1" >&2; return 127; fi; shift; node ${JSON.stringify(join(root, 'bin/marketkit.js'))} "$@"; }`;

let cluster: PostgresCluster;
let s3: S3Server;
before(async () => {
  [cluster, s3] = await Promise.all([startPostgres(), startS3Server()]);
});
after(async () => {
  await Promise.all([cluster?.stop(), s3?.stop()]);
});

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) if (child.pid) process.kill(-child.pid, 'SIGKILL');
});

/** Runs `lines` in one bash in `cwd`; resolves with its output once it ends. */
function bash(cwd: string, env: Record<string, string>, lines: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', ['-c', [npx, 'set -e', ...lines].join('\n')], { cwd, env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/root', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

interface Instance {
  url: string;
  api: string;
  stdout(): string;
  stderr(): string;
  stop(): Promise<void>;
}

/** Runs `lines` (ending in serve) in a bash of its own process group, resolved once the banner says where it serves. */
function instance(cwd: string, env: Record<string, string>, lines: string[]): Promise<Instance> {
  const child = spawn('bash', ['-c', [npx, ...lines].join('\n')], { cwd, env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/root', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    running.delete(child);
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the instance did not start within 30 s; stderr: ${stderr}`));
    }, 30_000);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const serving = /is serving (http:\/\/\S+)\n[\s\S]*Stop with Ctrl-C\./.exec(stdout);
      if (!serving) return;
      clearTimeout(timer);
      resolve({ url: serving[1]!, api: `${serving[1]}/api/v1`, stdout: () => stdout, stderr: () => stderr, stop });
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the instance exited before it served; stdout: ${stdout}; stderr: ${stderr}`));
    });
  });
}

test('docs/deploy.md shows exactly the commands this test runs', () => {
  assert.deepEqual(documented, Object.values(commands));
});

test('docs/deploy.md, run: secrets, migrate, two instances on one PostgreSQL database and one S3 bucket serving one marketplace', async (t) => {
  const cwd = tempDir(t, 'marketkit-deploy-');
  const url = await cluster.createDatabase();
  const serviceKey = 'a'.repeat(64);
  // The settings of the page's table; PORT=0 (a free port each) and HOST=127.0.0.1 for the test.
  const settings = {
    MARKETKIT_DATABASE_URL: url,
    MARKETKIT_S3_BUCKET: s3.bucket,
    MARKETKIT_S3_ENDPOINT: s3.endpoint,
    MARKETKIT_S3_PATH_STYLE: 'true',
    MARKETKIT_S3_PREFIX: 'deploy-doc',
    MARKETKIT_S3_ACCESS_KEY_ID: s3rverCredentials.accessKeyId,
    MARKETKIT_S3_SECRET_ACCESS_KEY: s3rverCredentials.secretAccessKey,
    MARKETKIT_SERVICE_KEY: serviceKey,
    HOST: '127.0.0.1',
    PORT: '0',
  };

  // The secrets, once.
  const keys = await bash(cwd, settings, [commands.keys]);
  assert.equal(keys.code, 0, keys.stderr);
  const envFile = readFileSync(join(cwd, 'marketkit.env'), 'utf8');
  assert.match(envFile, /^MARKETKIT_SIGNING_SECRET=[0-9a-f]{64}$/m);
  assert.match(envFile, /^MARKETKIT_SESSION_KEY='\{"kty":"EC".*\}'$/m);

  // Without them, an instance refuses to start, saying how to make them.
  const refused = await bash(cwd, settings, [commands.serve]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /Set MARKETKIT_SIGNING_SECRET \(make one with: openssl rand -hex 32\) and MARKETKIT_SESSION_KEY \(make one with: npx marketkit keys\)/);

  // Migrations, in the pipeline.
  const migrated = await bash(cwd, settings, [commands.migrate]);
  assert.equal(migrated.code, 0, migrated.stderr);
  assert.match(migrated.stdout, /^Migrated the database at 127\.0\.0\.1:\d+\/\w+ from schema version 0 to \d+:\n {2}applied 1 initial\n/);
  assert.match((await bash(cwd, settings, [commands.migrate])).stdout, /nothing to do/);

  // Each instance: two of them, started at once.
  const [a, b] = await Promise.all([instance(cwd, settings, [commands.load, commands.serve]), instance(cwd, settings, [commands.load, commands.serve])]);
  t.after(() => Promise.all([a!.stop(), b!.stop()]));
  for (const one of [a!, b!]) assert.match(one.stdout(), /Storage {5}PostgreSQL 127\.0\.0\.1:\d+\/\w+ \(MARKETKIT_DATABASE_URL\), blobs in s3:\/\/marketkit-test\/deploy-doc\//);
  const shown = [a!, b!].map((one) => /Dev token {3}(smcp_\S+)/.exec(one.stdout())?.[1]).filter(Boolean);
  assert.equal(shown.length, 1, 'exactly one instance made the dev seller and shows its token');
  const dev = shown[0]!;

  // What one stores, the other reads.
  const created = await as(a!, dev).post('/assets', { title: 'Castle Pack', slug: 'castle-pack' });
  assert.equal(created.status, 201);
  const id = created.body.id;
  assert.equal((await as(b!, dev).get(`/assets/${id}`)).body.title, 'Castle Pack');
  // An upload URL issued by one is confirmed through the other; the file is in the bucket.
  const issued = await as(a!, dev).post(`/assets/${id}/upload-url`, { filename: 'pack.zip' });
  assert.equal(new URL(issued.body.signed_url).origin, s3.endpoint);
  const bytes = crypto.getRandomValues(new Uint8Array(20_000));
  assert.equal((await fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: bytes })).status, 200);
  assert.equal((await as(b!, dev).post(`/assets/${id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: bytes.byteLength })).status, 200);
  assert.equal((await as(a!, dev).post(`/assets/${id}/submit`)).body.status, 'pending');
  // A session exchanged on one works on the other; both publish the same key.
  const session = await as(a!, dev).post('/auth/session');
  assert.equal(session.status, 200);
  assert.equal((await as(b!, session.body.access_token).get('/me')).status, 200);
  const jwks = await Promise.all([a!, b!].map(async (one) => (await fetch(`${one.api}/.well-known/jwks.json`)).json()));
  assert.deepEqual(jwks[0], jwks[1]);
  // The admin surface answers on both with the shared service key.
  for (const one of [a!, b!]) assert.equal((await fetch(`${one.url}/api/admin/moderation/queue`, { headers: { authorization: `Bearer ${serviceKey}` } })).status, 200);

  // Tokens and moderation from a shell with the database URL.
  const token = await bash(cwd, settings, [commands.token]);
  assert.equal(token.code, 0, token.stderr);
  const ci = /token {4}(smcp_\S+)/.exec(token.stdout)![1]!;
  for (const one of [a!, b!]) assert.equal((await as(one, ci).get('/me')).status, 200);
  const queue = await bash(cwd, settings, [commands.queue]);
  assert.equal(queue.code, 0, queue.stderr);
  assert.match(queue.stdout, new RegExp(`^1 waiting for review \\(oldest first\\):\\n {2}${id} {2}pending {12}Castle Pack\\n$`));
  // A token revoked from the shell is refused by both instances on their next request.
  const listed = JSON.parse((await runCli(['token', 'list', '--account', 'dev-seller', '--json'], { MARKETKIT_DATABASE_URL: url })).stdout);
  const ciId = listed.data.find((tk: { name: string }) => tk.name === 'ci').id;
  assert.equal((await runCli(['token', 'revoke', '--account', 'dev-seller', '--id', ciId], { MARKETKIT_DATABASE_URL: url })).code, 0);
  for (const one of [a!, b!]) assert.equal((await as(one, ci).get('/me')).status, 401);

  assert.ok(existsSync(join(cwd, 'marketkit.env')));
  for (const one of [a!, b!]) assert.doesNotMatch(one.stdout() + one.stderr(), /postgres:\/\//, 'never the database URL');
});
