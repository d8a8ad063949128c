/**
 * `marketkit serve --database-url`, `migrate`, `keys`, and `token` / `admin` on a database, as a
 * user runs them: the commands in their own processes against a throwaway PostgreSQL 15 cluster
 * the test starts (test/fixtures/postgres.ts).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import pg from 'pg';
import { schemaVersion } from '../../adapters/postgres/index.js';
import { migrations } from '../../adapters/sql/migrations/migrations.js';
import { keys, runCli, startCli, startCliServer, tempDir, type ServerProcess } from '../fixtures/cli.js';
import { inSchema } from '../fixtures/postgres-database.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { as, validAsset } from '../fixtures/server.js';
import { runServe } from '../../cli/serve.js';
import { runMigrate } from '../../cli/migrate.js';
import { runToken } from '../../cli/token.js';
import { runAdmin } from '../../cli/admin.js';
import { needs } from '../fixtures/parts.js';

const { before, test } = needs('postgresql');

let cluster: PostgresCluster;
before(async () => {
  cluster = await startPostgres();
});
after(() => cluster?.stop());

const json = (stdout: string) => JSON.parse(stdout);

async function rows(url: string, text: string) {
  const client = new pg.Client({ connectionString: inSchema(url) });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

test('keys prints a fresh signing secret and session key, as env lines a shell can load and as JSON', async () => {
  const text = await runCli(['keys']);
  assert.equal(text.code, 0, text.stderr);
  const lines = text.stdout.trim().split('\n');
  assert.match(lines[0]!, /^# MarketKit: the secrets every instance shares/);
  assert.match(lines[1]!, /^MARKETKIT_SIGNING_SECRET=[0-9a-f]{64}$/);
  const key = JSON.parse(/^MARKETKIT_SESSION_KEY='(.*)'$/.exec(lines[2]!)![1]!);
  assert.deepEqual([key.kty, key.crv, key.alg, typeof key.d], ['EC', 'P-256', 'ES256', 'string']);
  const other = json((await runCli(['keys', '--json'])).stdout);
  assert.notEqual(other.signing_secret, lines[1]!.split('=')[1], 'fresh each time');
  const help = (await runCli(['keys', '--help'])).stdout;
  assert.match(help, /Usage: marketkit keys \[--json\]/);
});

test('serve refuses a database without the shared secrets, and the contradictions, saying what to do', async (t) => {
  const url = await cluster.createDatabase();
  const dir = tempDir(t);
  const secrets = await keys();
  // Through the command: exit 2, the message, nothing served.
  const noSecrets = await runCli(['serve', '--port', '0', '--database-url', url, '--blobs', 'fs', '--data-dir', dir]);
  assert.equal(noSecrets.code, 2);
  assert.equal(noSecrets.stdout, '', 'nothing served');
  assert.equal(
    noSecrets.stderr,
    'marketkit serve: a database (--database-url) may be served by several instances, so every instance must have the same secrets from configuration, or an upload URL or a session issued by one would be refused by the others. ' +
      'Set MARKETKIT_SIGNING_SECRET (make one with: openssl rand -hex 32) and MARKETKIT_SESSION_KEY (make one with: npx marketkit keys), the same on every instance; "npx marketkit keys > marketkit.env" writes both (docs/deploy.md).\n',
  );
  // The rest in process (the same function the command runs): each refused before anything opens.
  const refused = async (args: string[], env: Record<string, string>, message: RegExp) => {
    const out: string[] = [];
    await assert.rejects(runServe(['--port', '0', ...args], env, (line) => out.push(line)), (error: Error) => {
      assert.equal(error.name, 'UsageError', `${args.join(' ')}: ${error.message}`);
      assert.match(error.message, message);
      return true;
    });
    assert.deepEqual(out, []);
  };
  await refused(['--database-url', url, '--blobs', 'fs', '--data-dir', dir], { MARKETKIT_SIGNING_SECRET: secrets.MARKETKIT_SIGNING_SECRET }, /Set MARKETKIT_SESSION_KEY \(make one with: npx marketkit keys\), the same/);
  await refused(['--blobs', 'fs', '--data-dir', dir], { MARKETKIT_DATABASE_URL: url, MARKETKIT_SESSION_KEY: secrets.MARKETKIT_SESSION_KEY }, /a database \(MARKETKIT_DATABASE_URL\) may be .* Set MARKETKIT_SIGNING_SECRET \(make one with: openssl rand -hex 32\), the same/);
  await refused(['--blobs', 'fs', '--data-dir', dir], { DATABASE_URL: url }, /a database \(DATABASE_URL\) may be served/);
  await refused(['--database-url', url, '--blobs', 'fs'], { ...secrets, MARKETKIT_SIGNING_SECRET: 'too short' }, /MARKETKIT_SIGNING_SECRET must be at least 32 bytes \(make one with: openssl rand -hex 32\)/);
  await refused(['--database-url', url, '--blobs', 'fs'], { ...secrets, MARKETKIT_SESSION_KEY: '{"kty":"oct"}' }, /MARKETKIT_SESSION_KEY must be a P-256 private key as a JSON Web Key.*\(make one with: npx marketkit keys\)/);
  await refused(['--database-url', url, '--blobs', 'fs'], { ...secrets, MARKETKIT_SESSION_KEY: 'not json' }, /MARKETKIT_SESSION_KEY must be .* It is not JSON\./);
  await refused(['--database-url', url, '--memory'], secrets, /^--memory keeps everything in this process, and --database-url keeps it in PostgreSQL: give one of them\.$/);
  await refused(['--memory'], { ...secrets, DATABASE_URL: url }, /^--memory keeps everything in this process, and a database \(DATABASE_URL\) keeps it in PostgreSQL: give one of them, or unset DATABASE_URL\.$/);
  await refused(['--memory', '--test-controls', '--database-url', url], secrets, /^--memory keeps everything in this process/);
  await refused(['--database-url', url], secrets, /^with --database-url, say where uploads go: --blobs s3 .* or --blobs fs \(files under --data-dir, for instances on one machine\)\.$/);
  await refused(['--database-url', url, '--blobs', 'memory'], secrets, /^--blobs memory would lose every file when the process stops while --database-url keeps their records/);
  await refused(['--database-url', url, '--blobs', 's3', '--s3-bucket', 'b', '--data-dir', dir], secrets, /^--data-dir would hold nothing: with --database-url and --blobs s3/);
  await refused(['--database-url', 'mysql://u:p@h/db', '--blobs', 'fs'], secrets, /^--database-url must be a PostgreSQL URL such as postgres:\/\/user:password@host:5432\/marketkit, not a mysql: URL\.$/);
  await refused(['--max-staleness', '500'], {}, /^--max-staleness sets the PostgreSQL database's pool or cache, and there is none: give --database-url, or leave out --max-staleness$/);
  await refused(['--memory', '--pool-size', '4'], {}, /^--pool-size sets the PostgreSQL database's pool or cache/);
  await refused([], { DATABASE_URL: 'mysql://u:p@h/db' }, /^DATABASE_URL must be a PostgreSQL URL .* set MARKETKIT_DATABASE_URL, or unset DATABASE_URL to use a data directory\.$/);
  // A database that does not answer stops the start (exit 1), naming where it is and never the URL.
  const down = await runCli(['serve', '--port', '0', '--database-url', 'postgres://marketkit:hunter2@127.0.0.1:1/nowhere', '--blobs', 'fs', '--data-dir', dir], secrets);
  assert.equal(down.code, 1);
  assert.match(down.stderr, /^marketkit serve: marketkit postgresStorage: the PostgreSQL database at 127\.0\.0\.1:1\/nowhere is unavailable \(.*\); is the server running and reachable\?\n$/);
  assert.doesNotMatch(down.stderr, /hunter2/);
  // Refused before anything was opened: the database was never migrated.
  assert.deepEqual(await rows(url, "SELECT to_regclass('marketkit_migrations') AS t"), [{ t: null }]);
});

test('migrate on a fresh database applies every migration and says so, then nothing; serve starts on it', async (t) => {
  const url = await cluster.createDatabase();
  const where = `127.0.0.1:${cluster.port}${new URL(url).pathname}`;
  const first = await runCli(['migrate', '--database-url', url]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(
    first.stdout,
    [`Migrated the database at ${where} from schema version 0 to ${schemaVersion}:`, ...migrations.map((m) => `  applied ${m.version} ${m.name}`), ''].join('\n'),
  );
  assert.ok(!first.stdout.includes('postgres://'), 'never the URL, which may hold a password');
  const again = await runCli(['migrate', '--json'], { MARKETKIT_DATABASE_URL: url });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(json(again.stdout), { database: where, from: schemaVersion, to: schemaVersion, applied: [] });
  const text = await runCli(['migrate'], { DATABASE_URL: url });
  assert.equal(text.stdout, `The database at ${where} is at schema version ${schemaVersion}, the newest this MarketKit knows: nothing to do.\n`);
  assert.deepEqual(
    (await rows(url, 'SELECT version FROM marketkit_migrations ORDER BY version')).map((r) => r.version),
    migrations.map((m) => m.version),
  );

  // A database from a newer MarketKit: refused, exit 1, with what to do.
  const newer = await cluster.createDatabase();
  await runCli(['migrate', '--database-url', newer]);
  await rows(newer, `INSERT INTO marketkit_migrations (version, name, applied_at) VALUES (${schemaVersion + 1}, 'future', 'now')`);
  const refused = await runCli(['migrate', '--database-url', newer]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, new RegExp(`has schema version ${schemaVersion + 1}, written by a newer MarketKit; this one knows versions up to ${schemaVersion}\\. Upgrade marketkit`));
  const nothing = await runCli(['migrate']);
  assert.equal(nothing.code, 2);
  assert.match(nothing.stderr, /marketkit migrate: name the database: --database-url postgres:\/\/user:password@host:5432\/name, or set MARKETKIT_DATABASE_URL \(or DATABASE_URL\)\./);

  const server = await startCliServer(['--database-url', url, '--blobs', 'fs', '--data-dir', tempDir(t)], await keys());
  t.after(() => server.stop('SIGKILL'));
  assert.equal((await as(server.info, server.info.dev_seller.token).get('/me')).status, 200);
});

test('serve --database-url does the REST flow on PostgreSQL (files under --data-dir), and token and admin work on the same database', async (t) => {
  const url = await cluster.createDatabase();
  const dir = tempDir(t);
  const secrets = await keys();
  const serviceKey = 'k'.repeat(40);
  const server: ServerProcess = await startCliServer(['--database-url', url, '--blobs', 'fs', '--data-dir', dir], { ...secrets, MARKETKIT_SERVICE_KEY: serviceKey });
  t.after(() => server.stop('SIGKILL'));
  assert.deepEqual(server.info.storage, { kind: 'postgres', database: `127.0.0.1:${cluster.port}${new URL(url).pathname}`, blobs: join(dir, 'blobs'), read_cache: 'strict' });
  const token = server.info.dev_seller.token!;
  assert.match(token, /^smcp_/);
  const seller = as(server.info, token);

  const created = await seller.post('/assets', { title: 'Castle Pack', slug: 'castle-pack' });
  assert.equal(created.status, 201);
  const id = created.body.id;
  const issued = await seller.post(`/assets/${id}/upload-url`, { filename: 'pack.zip' });
  assert.equal(issued.status, 200);
  const bytes = crypto.getRandomValues(new Uint8Array(5000));
  assert.equal((await fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: bytes })).status, 200);
  assert.equal((await seller.post(`/assets/${id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: bytes.byteLength })).status, 200);
  const files = (readdirSync(join(dir, 'blobs'), { recursive: true }) as string[]).filter((file) => file.endsWith('pack.zip') && statSync(join(dir, 'blobs', file)).isFile());
  assert.ok(files.some((file) => readFileSync(join(dir, 'blobs', file)).equals(bytes)), `the file is under --data-dir: ${files.join(', ')}`);
  const submitted = await seller.post(`/assets/${id}/submit`);
  assert.deepEqual([submitted.status, submitted.body.status], [200, 'pending']);
  assert.deepEqual((await rows(url, `SELECT status FROM assets WHERE id = '${id}'`)).map((r) => r.status), ['pending'], 'stored in PostgreSQL');
  assert.equal((await seller.get('/studio/projects')).status, 200, 'Creator Studio on PostgreSQL too');

  // admin on the database: the queue, then approve; the server sees it at once.
  const queue = await runCli(['admin', 'queue', '--database-url', url, '--json']);
  assert.equal(queue.code, 0, queue.stderr);
  assert.deepEqual(json(queue.stdout).items.map((a: { id: string }) => a.id), [id]);
  const approved = await runCli(['admin', 'approve', id], { MARKETKIT_DATABASE_URL: url });
  assert.equal(approved.code, 0, approved.stderr);
  assert.equal((await seller.get(`/assets/${id}`)).body.status, 'published');
  const overHttp = await fetch(`${server.info.url}/api/admin/moderation/queue`, { headers: { authorization: `Bearer ${serviceKey}` } });
  assert.equal(overHttp.status, 200, 'the admin surface with the configured service key');

  // token create / list / revoke on the database; the running server refuses a revoked token at once.
  const made = await runCli(['token', 'create', '--account', 'dev-seller', '--name', 'ci', '--database-url', url, '--json']);
  assert.equal(made.code, 0, made.stderr);
  const ci = json(made.stdout);
  assert.equal((await as(server.info, ci.token).get('/me')).status, 200);
  const listed = await runCli(['token', 'list', '--account', 'dev-seller', '--json'], { DATABASE_URL: url });
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(json(listed.stdout).data.map((tk: { name: string }) => tk.name), ['ci', 'dev token']);
  const revoked = await runCli(['token', 'revoke', '--account', 'dev-seller', '--id', ci.id, '--database-url', url]);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.equal((await as(server.info, ci.token).get('/me')).status, 401);
  const missing = await runCli(['token', 'list', '--account', 'nobody', '--database-url', url]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, new RegExp(`there is no account "nobody" in PostgreSQL 127\\.0\\.0\\.1:${cluster.port}/`));
  const both = await runCli(['token', 'list', '--account', 'dev-seller', '--data-dir', dir, '--database-url', url]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /give --data-dir or a database \(--database-url\), not both/);
  const adminBoth = await runCli(['admin', 'queue', '--data-dir', dir], { MARKETKIT_DATABASE_URL: url });
  assert.equal(adminBoth.code, 2);
  assert.match(adminBoth.stderr, /give --data-dir or a database \(MARKETKIT_DATABASE_URL\), not both/);

  // A restart finds the dev seller and makes no new token; sessions and upload URLs outlive it (the secrets are configured).
  const session = await seller.post('/auth/session');
  assert.equal(session.status, 200);
  const pendingUrl = await seller.post(`/assets/${(await seller.post('/assets', { title: 'Second', slug: 'second' })).body.id}/upload-url`, { filename: 'b.zip' });
  await server.stop('SIGTERM');
  const again = await startCliServer(['--database-url', url, '--blobs', 'fs', '--data-dir', dir], secrets);
  t.after(() => again.stop('SIGKILL'));
  assert.equal(again.info.dev_seller.token, null);
  assert.equal((await as(again.info, session.body.access_token).get('/me')).status, 200, 'a session of the first process');
  const put = await fetch(pendingUrl.body.signed_url.replace(server.info.url, again.info.url), { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: new Uint8Array(10) });
  assert.equal(put.status, 200, 'an upload URL of the first process');
});

test('serve --max-staleness: two instances share a bounded-staleness read cache; a write on one shows on the other within the bound', { timeout: 60_000 }, async (t) => {
  const url = await cluster.createDatabase();
  const secrets = await keys();
  const dir = tempDir(t);
  // A bad figure is refused by the command, naming the flag.
  const tooSmall = await runCli(['serve', '--port', '0', '--database-url', url, '--blobs', 'fs', '--data-dir', dir, '--max-staleness', '5'], secrets);
  assert.equal(tooSmall.code, 2);
  assert.match(tooSmall.stderr, /max-staleness must be a whole number of at least 10/);
  // Long enough that a poll (every 1 s) rarely lands between a write and the next read, even on a loaded machine.
  const maxStalenessMs = 2000;
  const flags = ['--database-url', url, '--blobs', 'fs', '--data-dir', dir, '--max-staleness', String(maxStalenessMs), '--pool-size', '3', '--statement-timeout', '5000'];
  const one = await startCliServer(flags, secrets);
  t.after(() => one.stop());
  const two = await startCliServer(flags, secrets);
  t.after(() => two.stop());
  assert.deepEqual(one.info.storage.kind === 'postgres' && one.info.storage.read_cache, { max_staleness_ms: maxStalenessMs });
  const token = one.info.dev_seller.token ?? two.info.dev_seller.token!;
  const a = as({ api: one.info.api }, token);
  const b = as({ api: two.info.api }, token);
  const created = await a.post('/assets', validAsset({ title: 'Staleness Castle' }));
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.id as string;
  assert.equal((await b.get(`/assets/${id}`)).body.title, 'Staleness Castle', 'read once on the second instance: now in its cache');
  // Each round: a write on one instance, then the other is read until it shows the write.
  const lags: number[] = [];
  for (let round = 0; round < 5; round++) {
    const title = `Staleness Castle ${round}`;
    assert.equal((await a.patch(`/assets/${id}`, { title })).status, 200);
    const written = performance.now();
    for (;;) {
      if ((await b.get(`/assets/${id}`)).body.title === title) break;
      assert.ok(performance.now() - written < maxStalenessMs + 2000, `the second instance still served the old title ${maxStalenessMs + 2000} ms after the write`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    lags.push(performance.now() - written);
  }
  // The bound is the guarantee (docs/deploy.md); the notification usually makes it milliseconds.
  assert.ok(Math.max(...lags) <= maxStalenessMs + 250, `each write showed within ${maxStalenessMs} ms (+250 ms of slack for a loaded machine): ${lags.map((lag) => lag.toFixed(0)).join(', ')} ms`);
  // A write no instance made (straight into the database: the version rows move, nobody notifies)
  // shows only at the next poll: the instance no longer asks the database on every request, which
  // is what the flag is for. Strict mode would show it on the very next read.
  const staleReads: boolean[] = [];
  const behind = new pg.Client({ connectionString: url });
  await behind.connect();
  t.after(() => behind.end());
  for (let round = 0; round < 3; round++) {
    const title = `Written behind the instances ${round}`;
    // A session in its own schema (as psql or an application's would be) names MarketKit's; the trigger still moves the version.
    await behind.query('UPDATE marketkit.assets SET title = $1 WHERE id = $2', [title, id]);
    const written = performance.now();
    staleReads.push((await b.get(`/assets/${id}`)).body.title !== title);
    for (;;) {
      if ((await b.get(`/assets/${id}`)).body.title === title) break;
      assert.ok(performance.now() - written < maxStalenessMs + 2000, `a write behind the instances did not show within ${maxStalenessMs + 2000} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  // A poll can land between the write and the read (a few ms of a 1 s period): not three times running.
  assert.ok(staleReads.includes(true), `right after a write behind its back the instance served the new title every time (${staleReads}): it still asks on every request`);
  // The banner says which mode it runs.
  const banner = await startCli(['serve', '--port', '0', ...flags], (stdout) => stdout.includes('Stop with Ctrl-C.'), secrets);
  t.after(() => banner.stop());
  assert.match(banner.stdout(), new RegExp(`Read cache  at most ${maxStalenessMs} ms stale across instances \\(--max-staleness\\)`));
});

test('--help of serve, migrate, token and admin says how to use a database and the shared secrets', async () => {
  const help = async (run: (out: (line: string) => void) => Promise<void>) => {
    const out: string[] = [];
    await run((line) => out.push(line));
    return out.join('\n');
  };
  const serve = await help((out) => runServe(['--help'], {}, out));
  for (const text of ['--database-url <url>', 'MARKETKIT_DATABASE_URL, then DATABASE_URL', '--max-staleness <ms>', 'MARKETKIT_MAX_STALENESS_MS', '--pool-size <n>', '--statement-timeout <ms>', 'MARKETKIT_SIGNING_SECRET', 'MARKETKIT_SESSION_KEY', 'MARKETKIT_SERVICE_KEY', 'openssl rand -hex 32', 'npx marketkit keys', 'marketkit migrate', '--blobs s3', 'docs/deploy.md']) {
    assert.ok(serve.includes(text), `serve --help mentions ${text}`);
  }
  const migrate = await help((out) => runMigrate(['--help'], {}, out));
  assert.match(migrate, /Usage: marketkit migrate \[--database-url <url>\] \[--database-schema <name>\] \[--json\]/);
  assert.match(migrate, /advisory lock/);
  for (const sub of ['create', 'list', 'revoke']) assert.match(await help((out) => runToken([sub, '--help'], {}, out)), /--database-url <url> .*MARKETKIT_DATABASE_URL, then DATABASE_URL/);
  assert.match(await help((out) => runToken(['--help'], {}, out)), /--database-url/);
  assert.match(await help((out) => runAdmin(['--help'], {}, out)), /--database-url/);
  assert.match(await help((out) => runAdmin(['approve', '--help'], {}, out)), /\[--data-dir <dir> \| --database-url <url>\][\s\S]*--database-url <url>/);
  // The commands are registered with the command line.
  const usage = (await runCli(['--help'])).stdout;
  assert.match(usage, /migrate +Bring a PostgreSQL database/);
  assert.match(usage, /keys +Print a fresh upload-signing secret and session key/);
});

test('serve on PostgreSQL through an outage: 503 with Retry-After while the database is stopped, 200 after, no 500, one line on stderr', async (t) => {
  const url = await cluster.createDatabase();
  const secrets = await keys();
  const server = await startCliServer(['--database-url', url, '--blobs', 'fs', '--data-dir', tempDir(t)], secrets);
  t.after(() => server.stop('SIGKILL'));
  const seller = as(server.info, server.info.dev_seller.token!);
  const id = (await seller.post('/assets', { title: 'Castle Pack', slug: 'castle-pack' })).body.id;
  const before = server.stderr();

  await cluster.pause();
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const get = await seller.get(`/assets/${id}`);
      statuses.push(get.status);
      assert.equal(get.headers.get('retry-after'), '5');
      assert.equal(get.body.code, 'SERVICE_UNAVAILABLE');
    }
    statuses.push((await seller.post('/assets', { title: 'X', slug: 'x' })).status);
    const health = await fetch(`${server.info.api}/health`);
    assert.equal(health.status, 503);
    assert.equal(((await health.json()) as { status: string }).status, 'degraded');
    assert.deepEqual(new Set(statuses), new Set([503]));
  } finally {
    await cluster.resume();
  }
  const back = await seller.get(`/assets/${id}`);
  assert.equal(back.status, 200);
  assert.equal((await fetch(`${server.info.api}/health`)).status, 200);
  const logged = server.stderr().slice(before.length);
  const reports = logged.split('\n').filter((line) => line.startsWith('marketkit:'));
  assert.ok(reports.length >= 1 && reports.length <= 2, `one report of the outage (and perhaps one of the lost connection), not one per request:\n${logged}`);
  assert.ok(!logged.includes('postgres://'), 'never the database URL');
});

test('two instances starting at once on a fresh database: it is migrated once, one makes the dev seller and shows its token', async (t) => {
  const url = await cluster.createDatabase();
  const secrets = await keys();
  const dir = tempDir(t);
  const [one, two] = await Promise.all([0, 1].map(() => startCliServer(['--database-url', url, '--blobs', 'fs', '--data-dir', dir], secrets)));
  t.after(() => Promise.all([one!.stop('SIGKILL'), two!.stop('SIGKILL')]));
  const tokens = [one!.info.dev_seller.token, two!.info.dev_seller.token];
  assert.equal(tokens.filter(Boolean).length, 1, 'exactly one shows the token');
  assert.equal(one!.info.dev_seller.id, two!.info.dev_seller.id);
  assert.equal((await rows(url, 'SELECT COUNT(*)::int AS n FROM marketkit_migrations'))[0].n, schemaVersion);
  const token = tokens.find(Boolean)!;
  const created = await as(one!.info, token).post('/assets', { title: 'Shared', slug: 'shared' });
  assert.equal(created.status, 201);
  assert.equal((await as(two!.info, token).get(`/assets/${created.body.id}`)).body.title, 'Shared', 'created through one, read through the other');
});
