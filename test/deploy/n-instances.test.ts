/**
 * Three `marketkit serve` processes on one PostgreSQL database and one S3 bucket, behind haproxy
 * with health checks (test/fixtures/haproxy.ts, the configuration docs/deploy.md shows). A bounded
 * workload through the balancer (4 workers: creates, contended slug races, PATCHes, the upload
 * flow, token revocations; before it, one Idempotency-Key sent 12 times at once: one run), with one instance killed with SIGKILL and started again, and
 * PostgreSQL stopped and started again, mid-run. Then: every acknowledged write is there, no slug
 * is taken twice and each race has one winner, every successful PATCH made its own revision, a
 * revoked token is refused by the next request to every instance, the failed-authentication budget
 * is allowed exactly once across the instances, upload URLs and sessions of one instance work on
 * the others, and nothing but 503 or a refused connection during the outage, nothing after.
 *
 * All real: PostgreSQL 15 (test/fixtures/postgres.ts), s3rver, haproxy 2.6 from Debian.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { runToken } from '../../cli/token.js';
import { runCli, startCli, type CliProcess } from '../fixtures/cli.js';
import { freePort, haproxyConfig, startHaproxy, type Haproxy } from '../fixtures/haproxy.js';
import { queryRows } from '../fixtures/postgres-database.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { s3rverCredentials, startS3Server, type S3Server } from '../fixtures/s3.js';
import { needs } from '../fixtures/parts.js';

/** The workload needs PostgreSQL and haproxy; the first test, only the docs. */
const parts = needs('postgresql', 'haproxy');

const root = new URL('../../', import.meta.url).pathname;

/** The settings docs/deploy.md shows the haproxy configuration with. */
const documented = { bind: ':8080', servers: ['10.0.0.11:8787', '10.0.0.12:8787', '10.0.0.13:8787'], socket: '/run/haproxy/admin.sock' };

test('docs/deploy.md shows the haproxy configuration this test runs', () => {
  const doc = readFileSync(`${root}docs/deploy.md`, 'utf8');
  const block = /## Three instances behind a load balancer[\s\S]*?```haproxy\n([\s\S]*?)```/.exec(doc);
  assert.ok(block, 'docs/deploy.md has a haproxy block under "Three instances behind a load balancer"');
  assert.equal(block[1], haproxyConfig(documented));
  const commands = /## Three instances behind a load balancer[\s\S]*?```text\n([\s\S]*?)```/.exec(doc)![1]!.trim().split('\n');
  assert.deepEqual(commands, [
    // What test/fixtures/haproxy.ts runs.
    'haproxy -c -f haproxy.cfg',
    'haproxy -db -f haproxy.cfg',
    // What this test runs for each instance (with the settings the page says it adds).
    'npx marketkit serve --host 0.0.0.0 --port 8787 --blobs s3 --site-url https://market.example',
  ]);
});

let cluster: PostgresCluster;
let s3: S3Server;
parts.before(async () => {
  [cluster, s3] = await Promise.all([startPostgres(), startS3Server()]);
});
after(async () => {
  await Promise.all([cluster?.stop(), s3?.stop()]);
});

interface Answer {
  status: number;
  body: any;
  retryAfter?: string | undefined;
  replayed?: boolean;
}

/**
 * One request to `base` (an instance or the balancer) from the local address `from` (127.0.0.x:
 * the instances count failed authentications per client address, so each probe gets its own).
 */
function call(
  base: string,
  method: string,
  path: string,
  { token, body, from = '127.0.0.1', key }: { token?: string; body?: unknown; from?: string; key?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${base}/api/v1${path}`,
      {
        method,
        localAddress: from,
        agent: false,
        timeout: 15_000,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...(key ? { 'idempotency-key': key } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('error', reject);
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode!, body: parsed, retryAfter: res.headers['retry-after'], replayed: res.headers['idempotent-replayed'] === 'true' });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Each probe of a revoked token comes from an address of its own (127.0.1.n), so that its 401s use no one's budget. */
let probeAddress = 0;
const nextProbeAddress = () => `127.0.1.${++probeAddress}`;

interface Outcome {
  worker: number;
  op: string;
  start: number;
  end: number;
  /** The HTTP status, or 0 for a connection error. */
  status: number;
  /** A 503's error code and Retry-After, whoever answered it (an instance or haproxy). */
  unavailable?: string;
  /** A 503 from haproxy itself (no instance in rotation). */
  byBalancer?: boolean;
}

/** How many of `outcomes` had each status (0: a connection error). */
const count = (outcomes: Outcome[]) => outcomes.reduce<Record<number, number>>((acc, o) => ({ ...acc, [o.status]: (acc[o.status] ?? 0) + 1 }), {});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('three instances behind haproxy on one PostgreSQL and one S3: a workload with an instance killed and the database restarted keeps the contract', { skip: parts.skip }, async (t) => {
  const started = Date.now();
  const url = await cluster.createDatabase();
  const made = await runCli(['keys', '--json']);
  assert.equal(made.code, 0, made.stderr);
  const { signing_secret, session_key } = JSON.parse(made.stdout);
  const serviceKey = 's'.repeat(64);
  const env = {
    MARKETKIT_SIGNING_SECRET: signing_secret,
    MARKETKIT_SESSION_KEY: JSON.stringify(session_key),
    MARKETKIT_SERVICE_KEY: serviceKey,
    MARKETKIT_S3_ACCESS_KEY_ID: s3rverCredentials.accessKeyId,
    MARKETKIT_S3_SECRET_ACCESS_KEY: s3rverCredentials.secretAccessKey,
  };
  const failedAuthLimit = 5;
  const ports = await Promise.all([freePort(), freePort(), freePort()]);
  const lb: Haproxy = await startHaproxy(ports.map((port) => `127.0.0.1:${port}`));
  t.after(() => lb.stop());
  const args = (port: number) => [
    'serve', '--json', '--host', '127.0.0.1', '--port', String(port),
    '--database-url', url,
    '--blobs', 's3', '--s3-endpoint', s3.endpoint, '--s3-bucket', s3.bucket, '--s3-prefix', 'n-instances', '--s3-path-style',
    '--site-url', lb.url,
    '--failed-auth-limit', String(failedAuthLimit),
  ];
  const start = (port: number) => startCli(args(port), (stdout) => stdout.includes('\n'), env);
  const instances: CliProcess[] = await Promise.all(ports.map(start));
  t.after(() => Promise.all(instances.map((one) => one.stop('SIGKILL'))));
  const direct = ports.map((port) => `http://127.0.0.1:${port}`);
  const infos = instances.map((one) => JSON.parse(one.stdout().split('\n')[0]!));
  const devTokens = infos.map((info) => info.dev_seller.token).filter(Boolean);
  assert.equal(devTokens.length, 1, 'one instance made the dev seller');
  const dev: string = devTokens[0];
  await lb.allUp();
  const ready = Date.now();

  // Tokens, made as an operator makes them (marketkit token create, on the database).
  const createToken = async (name: string): Promise<{ token: string; id: string }> => {
    const out: string[] = [];
    await runToken(['create', '--account', 'dev-seller', '--name', name, '--all-scopes', '--database-url', url, '--json'], {}, (line) => out.push(line));
    return JSON.parse(out.join('\n'));
  };
  const workers = 4;
  const workerTokens = await Promise.all(Array.from({ length: workers }, (_, w) => createToken(`worker-${w}`)));
  const victims = await Promise.all(Array.from({ length: workers }, (_, w) => Promise.all([0, 1, 2].map((v) => createToken(`victim-${w}-${v}`)))));

  // URLs built by any instance point at the balancer (--site-url), never at the instance.
  for (const base of direct) {
    const document = await call(base, 'GET', '/openapi.json');
    assert.equal(document.status, 200);
    const servers = (document.body.servers as { url: string }[]).map((server) => server.url);
    assert.ok(servers.length > 0 && servers.every((server) => server.startsWith(lb.url)), `${base} builds its URLs on the balancer: ${servers.join(', ')}`);
  }

  // Each worker PATCHes a listing of its own; its revision before the run.
  const targets: string[] = [];
  for (let w = 0; w < workers; w++) {
    const created = await call(lb.url, 'POST', '/assets', { token: workerTokens[w]!.token, body: { title: `target ${w}`, slug: `target-${w}` } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    targets.push(created.body.id);
  }
  // One Idempotency-Key sent 12 times at once through the balancer, so to every instance: one run.
  const keyed = await Promise.all(
    Array.from({ length: 12 }, () => call(lb.url, 'POST', '/assets', { token: workerTokens[0]!.token, body: { title: 'Keyed', slug: 'keyed-once' }, key: 'n-instances-key' })),
  );
  const keyedIds = new Set(keyed.filter((a) => a.status === 201).map((a) => a.body.id));
  assert.equal(keyedIds.size, 1, `one listing answered for one key: ${keyed.map((a) => a.status)}`);
  assert.ok(keyed.every((a) => a.status === 201 || (a.status === 409 && a.body.code === 'IDEMPOTENCY_KEY_IN_USE')), `201 or 409 IN_USE only: ${keyed.map((a) => `${a.status} ${a.body?.code ?? ''}`)}`);
  assert.equal(keyed.filter((a) => a.status === 201 && !a.replayed).length, 1, 'one answer ran the write; the other 201s are replays');
  const keyedRetry = await call(lb.url, 'POST', '/assets', { token: workerTokens[0]!.token, body: { title: 'Keyed', slug: 'keyed-once' }, key: 'n-instances-key' });
  assert.deepEqual([keyedRetry.status, keyedRetry.replayed, keyedRetry.body.id], [201, true, [...keyedIds][0]], 'a later retry, on whichever instance, is the kept answer');

  const revisionsBefore = new Map((await queryRows(url, 'SELECT id, revision FROM assets WHERE id = ANY($1)', [targets])).map((r) => [r.id, r.revision]));

  // ---- The workload, and what goes wrong during it.
  const outcomes: Outcome[] = [];
  const created: { slug: string; id: string }[] = [];
  const sentCreates: string[] = [];
  const patches = new Map<string, { title: string; status: number; updatedAt?: string }[]>();
  /** Per listing: the storage path of its last acknowledged confirm, then those of later confirms left unanswered. */
  const confirmed = new Map<string, string[]>();
  const revoked: { token: string; id: string }[] = [];
  const races: { slug: string; answers: Answer[]; disrupted: boolean }[] = [];
  const timeline = { killAt: Infinity, killEnd: Infinity, pauseStart: Infinity, pausedAt: Infinity, resumeStart: Infinity, recoveredAt: Infinity };
  let stopAt = Infinity;

  const through = async (worker: number, op: string, method: string, path: string, token: string, body?: unknown): Promise<Answer> => {
    const begin = Date.now();
    try {
      const answer = await call(lb.url, method, path, { token, body });
      outcomes.push({ worker, op, start: begin, end: Date.now(), status: answer.status, ...(answer.status === 503 ? { unavailable: `${answer.body?.code} ${answer.retryAfter}`, byBalancer: String(answer.body?.error).startsWith('No instance can answer') } : {}) });
      return answer;
    } catch {
      outcomes.push({ worker, op, start: begin, end: Date.now(), status: 0 });
      return { status: 0, body: null };
    }
  };

  const race = async (slug: string) => {
    const begin = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => through(-1, 'race', 'POST', '/assets', workerTokens[i % workers]!.token, { title: `Race ${slug}`, slug })),
    );
    const end = Date.now();
    const disrupted = [timeline.killAt, timeline.pauseStart].some((from, i) => begin <= [timeline.killEnd, timeline.recoveredAt][i]! && end >= from);
    races.push({ slug, answers, disrupted });
  };

  const worker = async (w: number) => {
    const { token } = workerTokens[w]!;
    const mine: string[] = [];
    patches.set(targets[w]!, []);
    for (let i = 0; Date.now() < stopAt; i++) {
      const step = i % 8;
      if (step <= 2 || mine.length === 0) {
        const slug = `w${w}-${i}`;
        sentCreates.push(slug);
        const answer = await through(w, 'create', 'POST', '/assets', token, { title: `Listing ${slug}`, slug });
        if (answer.status === 201) {
          created.push({ slug, id: answer.body.id });
          mine.push(answer.body.id);
        }
      } else if (step <= 4) {
        const title = `target ${w} patch ${i}`;
        const answer = await through(w, 'patch', 'PATCH', `/assets/${targets[w]}`, token, { title });
        patches.get(targets[w]!)!.push({ title, status: answer.status, updatedAt: answer.status === 200 ? answer.body.updated_at : undefined });
      } else if (step === 5) {
        const id = mine.at(-1)!;
        const issued = await through(w, 'upload-url', 'POST', `/assets/${id}/upload-url`, token, { filename: 'pack.zip' });
        if (issued.status !== 200) continue;
        assert.equal(new URL(issued.body.signed_url).origin, s3.endpoint);
        const bytes = new TextEncoder().encode(`PK\u0003\u0004 ${w} ${i}`);
        const put = await fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: bytes });
        assert.equal(put.status, 200, 'the PUT goes to S3, which never went away');
        const confirm = await through(w, 'confirm', 'POST', `/assets/${id}/confirm-file`, token, { storage_path: issued.body.storage_path, file_size: bytes.byteLength });
        if (confirm.status === 200) confirmed.set(id, [issued.body.storage_path]);
        else if ((confirm.status === 0 || confirm.status >= 500) && confirmed.has(id)) confirmed.get(id)!.push(issued.body.storage_path);
      } else if (step === 6 || i % 48 !== 7) {
        await through(w, 'read', 'GET', `/assets/${mine.at(-1)}`, token);
      } else {
        // Every 48th step, so that the revocations spread over the run (the kill and the outage too).
        const victim = victims[w]!.find((v) => !revoked.includes(v));
        if (victim) {
          const answer = await through(w, 'revoke', 'DELETE', `/tokens?id=${victim.id}`, token);
          if (answer.status === 200) revoked.push(victim);
        }
      }
      await sleep(25);
    }
  };

  const chaos = async () => {
    await race('race-before');
    await sleep(1200);
    // One instance dies without a word, and comes back on the same port.
    timeline.killAt = Date.now();
    await instances[1]!.stop('SIGKILL');
    const during = race('race-kill');
    instances[1] = await start(ports[1]!);
    await during;
    await lb.allUp();
    timeline.killEnd = Date.now();
    await sleep(800);
    // PostgreSQL stops (fast shutdown: every connection is ended) and starts again.
    timeline.pauseStart = Date.now();
    await cluster.pause();
    timeline.pausedAt = Date.now();
    await sleep(1500);
    timeline.resumeStart = Date.now();
    await cluster.resume();
    await lb.allUp();
    await sleep(500);
    timeline.recoveredAt = Date.now();
    await race('race-after');
    stopAt = Math.max(ready + 8_000, Date.now() + 2_000);
  };

  await Promise.all([chaos(), ...Array.from({ length: workers }, (_, w) => worker(w))]);
  const workloadMs = Date.now() - ready;
  const served = Object.fromEntries(Object.entries(await lb.stats()).map(([name, row]) => [name, Number(row.stot)]));
  assert.ok(Object.values(served).length === 3 && Object.values(served).every((n) => n > 50), `round robin sent each instance its share: ${JSON.stringify(served)}`);

  // ---- Nothing but 503 or a refused connection during the outage; nothing but answers after it.
  const expected = new Set([200, 201, 409]);
  const inKill = (o: Outcome) => o.end >= timeline.killAt && o.start <= timeline.killEnd;
  const inOutage = (o: Outcome) => o.end >= timeline.pauseStart && o.start <= timeline.recoveredAt;
  const strictlyDown = outcomes.filter((o) => o.start >= timeline.pausedAt && o.end <= timeline.resumeStart);
  const outage = strictlyDown.filter((o) => !(o.status === 503 && o.unavailable === 'SERVICE_UNAVAILABLE 5') && o.status !== 0);
  assert.deepEqual(outage, [], 'while the database was down: only 503 SERVICE_UNAVAILABLE with Retry-After: 5 (from an instance or haproxy), or a refused connection');
  assert.ok(strictlyDown.length > 0, 'requests were made while the database was down');
  const afterRecovery = outcomes.filter((o) => o.start >= timeline.recoveredAt && !expected.has(o.status));
  assert.deepEqual(afterRecovery, [], 'after recovery: every request answered as usual');
  const undisrupted = outcomes.filter((o) => !inKill(o) && !inOutage(o) && !expected.has(o.status));
  assert.deepEqual(undisrupted, [], 'outside the kill and the outage: every request answered as usual');
  const disrupted = outcomes.filter((o) => (inKill(o) || inOutage(o)) && !expected.has(o.status) && ![0, 502, 503].includes(o.status));
  assert.deepEqual(disrupted, [], 'during the kill and the outage: an answer, a 502/503 or a refused connection, never a 500');
  assert.ok(outcomes.filter((o) => o.start >= timeline.recoveredAt && o.status >= 200 && o.status < 300).length > 0, 'writes succeeded after recovery');

  // ---- Every acknowledged create is there, with its slug; no slug twice.
  const stored = new Map((await queryRows(url, 'SELECT id, slug FROM assets')).map((r) => [r.id as string, r.slug as string]));
  for (const { slug, id } of created) assert.equal(stored.get(id), slug, `acknowledged create ${slug} (${id}) is stored`);
  assert.deepEqual(await queryRows(url, 'SELECT slug, COUNT(*)::int AS n FROM assets GROUP BY slug HAVING COUNT(*) > 1'), [], 'no slug taken twice');
  const storedSlugs = new Set(stored.values());
  const lost = sentCreates.filter((slug) => !storedSlugs.has(slug) && created.some((c) => c.slug === slug));
  assert.deepEqual(lost, []);

  // ---- Each contended slug has exactly one winner.
  assert.equal(races.length, 3);
  for (const { slug, answers, disrupted: wasDisrupted } of races) {
    const owners = [...stored].filter(([, s]) => s === slug).map(([id]) => id);
    assert.equal(owners.length, 1, `${slug} is stored once`);
    const winners = answers.filter((a) => a.status === 201);
    assert.ok(winners.length <= 1, `${slug}: at most one 201: ${answers.map((a) => a.status)}`);
    if (winners.length === 1) assert.equal(winners[0]!.body.id, owners[0], `${slug}: the 201 is the stored one`);
    if (!wasDisrupted) {
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409, 409, 409, 409], `${slug}: one 201, the others 409`);
      for (const loser of answers.filter((a) => a.status === 409)) assert.deepEqual([loser.body.code, /slug/i.test(loser.body.error)], ['CONFLICT', true], JSON.stringify(loser.body));
    }
  }

  // ---- Every successful PATCH made its own revision.
  const revisionsAfter = new Map((await queryRows(url, 'SELECT id, revision, title FROM assets WHERE id = ANY($1)', [targets])).map((r) => [r.id, r]));
  let patched = 0;
  for (const id of targets) {
    const sent = patches.get(id)!;
    const acked = sent.filter((p) => p.status === 200);
    patched += acked.length;
    const unknown = sent.filter((p) => p.status !== 200 && (p.status === 0 || p.status >= 500)).length;
    const delta = revisionsAfter.get(id)!.revision - revisionsBefore.get(id)!;
    assert.ok(delta >= acked.length && delta <= acked.length + unknown, `${id}: ${acked.length} PATCHes acknowledged (${unknown} unknown), revision moved by ${delta}`);
    const stamps = acked.map((p) => p.updatedAt);
    if (stamps.every(Boolean)) assert.equal(new Set(stamps).size, stamps.length, `${id}: each acknowledged PATCH has its own updated_at`);
    const lastAcked = sent.findLastIndex((p) => p.status === 200);
    const possible = sent.slice(Math.max(lastAcked, 0)).filter((p, i) => i === 0 || p.status === 0 || p.status >= 500).map((p) => p.title);
    if (lastAcked >= 0) assert.ok(possible.includes(revisionsAfter.get(id)!.title), `${id}: the stored title is the last acknowledged PATCH's (or a later unanswered one's)`);
  }
  assert.ok(patched > 10, `PATCHes acknowledged: ${patched}`);

  // ---- Every confirmed upload is the listing's file.
  assert.ok(confirmed.size > 0, 'uploads confirmed during the run');
  for (const [id, paths] of confirmed) {
    const read = await call(lb.url, 'GET', `/assets/${id}`, { token: dev });
    assert.equal(read.status, 200);
    assert.ok(paths.includes(read.body.file?.storage_path), `${id}: the file is the one last confirmed: ${JSON.stringify(read.body.file)} (${paths.join(', ')})`);
  }

  // ---- Tokens revoked during the run are refused by every instance.
  assert.ok(revoked.length > 0, 'tokens revoked during the run');
  for (const { token } of revoked) {
    for (const base of direct) assert.equal((await call(base, 'GET', '/me', { token, from: nextProbeAddress() })).status, 401, `a token revoked during the run, at ${base}`);
  }

  // ---- A token revoked through one instance is refused by the next request to each of the others.
  for (const [revoker, others] of [[0, [1, 2]], [1, [2, 0]], [2, [0, 1]]] as const) {
    const fresh = await createToken(`revoked-through-${revoker}`);
    // Every instance has used it (and holds its caller in its read cache).
    for (const base of direct) assert.equal((await call(base, 'GET', '/me', { token: fresh.token })).status, 200);
    assert.equal((await call(direct[revoker]!, 'DELETE', `/tokens?id=${fresh.id}`, { token: dev })).status, 200);
    for (const other of others) assert.equal((await call(direct[other]!, 'GET', '/me', { token: fresh.token, from: nextProbeAddress() })).status, 401, `revoked through ${revoker}, refused by ${other}`);
  }

  // ---- An upload URL issued by one instance is confirmed through another.
  const listing = (await call(direct[0]!, 'POST', '/assets', { token: dev, body: { title: 'Across', slug: 'across' } })).body.id;
  const issued = await call(direct[0]!, 'POST', `/assets/${listing}/upload-url`, { token: dev, body: { filename: 'pack.zip' } });
  assert.equal(issued.status, 200);
  const bytes = crypto.getRandomValues(new Uint8Array(10_000));
  assert.equal((await fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: bytes })).status, 200);
  assert.equal((await call(direct[2]!, 'POST', `/assets/${listing}/confirm-file`, { token: dev, body: { storage_path: issued.body.storage_path, file_size: bytes.byteLength } })).status, 200);
  assert.ok(s3.keys('n-instances/').some((key) => key.endsWith(issued.body.storage_path.split('/').pop())), 'the file is in the bucket');

  // ---- A session exchanged on one instance works on all, and through the balancer.
  const session = await call(direct[1]!, 'POST', '/auth/session', { token: dev });
  assert.equal(session.status, 200, JSON.stringify(session.body));
  for (const base of [...direct, lb.url]) assert.equal((await call(base, 'GET', '/me', { token: session.body.access_token })).status, 200, `the session at ${base}`);
  for (const base of direct) {
    const admin = await fetch(`${base}/api/admin/moderation/queue`, { headers: { authorization: `Bearer ${serviceKey}` } });
    await admin.arrayBuffer();
    assert.equal(admin.status, 200, 'the shared service key on every instance');
  }

  // ---- Exactly the failed-authentication budget across the instances: through the balancer, every
  // instance sees haproxy's address, and they count in one place (the database).
  const guesses: number[] = [];
  for (let i = 0; i < failedAuthLimit + 4; i++) guesses.push((await call(lb.url, 'GET', '/me', { token: `smcp_not_a_real_token_${i}` })).status);
  assert.deepEqual(guesses, [...Array(failedAuthLimit).fill(401), 429, 429, 429, 429]);

  const total = Date.now() - started;
  t.diagnostic(
    `workload ${workloadMs} ms: ${outcomes.length} requests through haproxy (sessions per instance ${JSON.stringify(served)}), ${created.length} creates, ${patched} PATCHes, ${confirmed.size} uploads, ${revoked.length} revocations acknowledged; ` +
      `kill to back in rotation ${timeline.killEnd - timeline.killAt} ms; database down ${timeline.resumeStart - timeline.pausedAt} ms, back in rotation ${timeline.recoveredAt - timeline.resumeStart} ms after the restart began; ` +
      `during the outage ${strictlyDown.filter((o) => o.status === 503).length} answered 503 (${strictlyDown.filter((o) => o.byBalancer).length} of them by haproxy), ${strictlyDown.filter((o) => o.status === 0).length} refused; ` +
      `around the kill ${JSON.stringify(count(outcomes.filter(inKill)))}; races ${races.map((r) => `${r.slug}: ${r.answers.map((a) => a.status).join(' ')}`).join(', ')}; test ${total} ms`,
  );
  for (const one of instances) assert.doesNotMatch(one.stdout() + one.stderr(), /postgres:\/\//, 'never the database URL');
});
