/**
 * Issue 29's "done means", run by hand (too long for `npm test`, whose tests do the same at a few
 * hundred MB): `marketkit upload` of a large sparse pack, SIGKILLed half-way, run again with
 * `--sha256`, on fs, on S3 (s3rver) or across three instances on PostgreSQL + s3rver behind
 * haproxy (the first run goes to instance A, which is SIGKILLed with it; the second goes through
 * the balancer). Prints one JSON line per step and a summary; exits 1 when the upload did not
 * resume from the server's offset or did not confirm with the right SHA-256.
 *
 *   npx tsx bench/upload-resume-demo.ts --store s3 --gib 6
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { keys, runCli, startCli, startCliServer, type CliProcess } from '../test/fixtures/cli.js';
import { freePort, startHaproxy } from '../test/fixtures/haproxy.js';
import { startPostgres } from '../test/fixtures/postgres.js';
import { s3rverCredentials, startS3Server } from '../test/fixtures/s3.js';
import { apiCall } from '../test/fixtures/tus.js';
import { validAsset } from '../test/fixtures/server.js';

const { values } = parseArgs({ options: { store: { type: 'string', default: 's3' }, gib: { type: 'string', default: '6' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log('usage: npx tsx bench/upload-resume-demo.ts [--store fs|s3|instances] [--gib 6]\n\nmarketkit upload of a sparse pack of --gib GiB, SIGKILLed half-way, then run again with --sha256.');
  process.exit(0);
}
const store = values.store!;
if (!['fs', 's3', 'instances'].includes(store)) throw new Error(`--store is fs, s3 or instances, not ${store}`);
const size = Math.round(Number(values.gib) * 2 ** 30);
const say = (line: Record<string, unknown>) => console.log(JSON.stringify({ at: new Date().toISOString(), ...line }));
const cleanups: (() => Promise<unknown> | unknown)[] = [];
const dir = mkdtempSync(join(tmpdir(), 'marketkit-demo-'));
cleanups.push(() => rmSync(dir, { recursive: true, force: true }));

/** The whole lines written so far, each parsed. */
const lines = (stdout: string) => stdout.split('\n').slice(0, -1).filter(Boolean).map((line) => JSON.parse(line));

/** A process's resident set now and at its peak, in MiB (Linux's /proc), or null where it is gone. */
function memoryOf(pid: number): { rssMiB: number; peakMiB: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const mib = (field: string) => Math.round(Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) / 1024);
    return { rssMiB: mib('VmRSS'), peakMiB: mib('VmHWM') };
  } catch {
    return null;
  }
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 4 * 2 ** 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The server(s): the URL the second run uses, the one the first run uses, the token, and what to kill at half. */
async function setUp(): Promise<{ url: string; firstUrl: string; token: string; killAtHalf: CliProcess | null; servers: CliProcess[] }> {
  const env = { ...(await keys()), MARKETKIT_S3_ACCESS_KEY_ID: s3rverCredentials.accessKeyId, MARKETKIT_S3_SECRET_ACCESS_KEY: s3rverCredentials.secretAccessKey };
  const max = ['--max-upload-size', String(size + 2 ** 20)];
  let s3Flags: string[] = [];
  if (store !== 'fs') {
    const s3 = await startS3Server();
    cleanups.push(() => s3.stop());
    s3Flags = ['--blobs', 's3', '--s3-endpoint', s3.endpoint, '--s3-bucket', s3.bucket, '--s3-path-style'];
  }
  if (store !== 'instances') {
    const server = await startCliServer(['--data-dir', join(dir, 'data'), ...max, ...s3Flags], env);
    cleanups.push(() => server.stop('SIGKILL'));
    return { url: server.info.url, firstUrl: server.info.url, token: server.info.dev_seller.token!, killAtHalf: null, servers: [server] };
  }
  const cluster = await startPostgres();
  cleanups.push(() => cluster.stop());
  const database = await cluster.createDatabase();
  const ports = await Promise.all([freePort(), freePort(), freePort()]);
  const lb = await startHaproxy(ports.map((port) => `127.0.0.1:${port}`));
  cleanups.push(() => lb.stop());
  const instances = await Promise.all(
    ports.map((port) =>
      startCli(['serve', '--json', '--host', '127.0.0.1', '--port', String(port), '--database-url', database, ...max, ...s3Flags, '--site-url', lb.url, '--upload-lease', '2'], (out) => out.includes('\n'), env),
    ),
  );
  cleanups.push(() => Promise.all(instances.map((one) => one.stop('SIGKILL'))));
  await lb.allUp();
  const token = instances.map((one) => JSON.parse(one.stdout().split('\n')[0]!).dev_seller.token).find(Boolean);
  return { url: lb.url, firstUrl: `http://127.0.0.1:${ports[0]}`, token, killAtHalf: instances[0]!, servers: instances };
}

async function main(): Promise<boolean> {
  const pack = join(dir, 'pack.bin');
  writeFileSync(pack, '');
  truncateSync(pack, size);
  const started = Date.now();
  const sha256 = await sha256Of(pack);
  say({ step: 'pack', bytes: size, sha256, seconds: (Date.now() - started) / 1000 });
  const { url, firstUrl, token, killAtHalf, servers } = await setUp();
  say({ step: 'servers', memory: servers.map((one) => memoryOf(one.pid)) });
  const asset = await apiCall(`${url}/api/v1`, token, 'POST', '/assets', validAsset());
  const env = { MARKETKIT_API_TOKEN: token };
  const args = (to: string, ...more: string[]) => ['upload', asset.body.id, pack, '--url', to, '--state', join(dir, 'state.json'), ...more];

  const firstStarted = Date.now();
  const half = (stdout: string) => lines(stdout).some((line) => line.event === 'progress' && line.loaded >= size / 2);
  const first = await startCli(args(firstUrl), (stdout) => lines(stdout).some((line) => line.event === 'progress'), env);
  while (!half(first.stdout())) await new Promise((resolve) => setTimeout(resolve, 200));
  if (killAtHalf) await killAtHalf.stop('SIGKILL');
  await first.stop('SIGKILL');
  const killedAt = Math.max(...lines(first.stdout()).map((line) => line.loaded ?? 0));
  say({ step: 'killed', loaded: killedAt, instanceKilled: killAtHalf !== null, seconds: (Date.now() - firstStarted) / 1000 });

  const secondStarted = Date.now();
  const second = await runCli(args(url, '--sha256', sha256), env);
  const events = lines(second.stdout);
  const resumed = events.find((line) => line.event === 'resumed');
  const confirmed = events.find((line) => line.event === 'confirmed');
  say({ step: 'resumed', exit: second.code, resumedAt: resumed?.offset ?? null, confirmed: confirmed ?? null, seconds: (Date.now() - secondStarted) / 1000, stderr: second.stderr.slice(-2000) });
  say({ step: 'servers', memory: servers.map((one) => memoryOf(one.pid)) });
  const ok = second.code === 0 && (resumed?.offset ?? 0) > 0 && confirmed?.sha256 === sha256 && confirmed?.file_size === size;
  say({ step: 'summary', store, bytes: size, ok, killedAt, resumedAt: resumed?.offset ?? null, totalSeconds: (Date.now() - started) / 1000 });
  return ok;
}

let ok = false;
try {
  ok = await main();
} finally {
  for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => {});
}
process.exit(ok ? 0 : 1);
