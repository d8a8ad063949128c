/**
 * The deployment the soak runs against (docs/operations.md, "Soak and chaos"): PostgreSQL, Redis
 * (the rate limits' store) and s3rver, each a throwaway process on a free port of 127.0.0.1, N
 * `marketkit serve` instances on them behind haproxy with health checks, as docs/deploy.md
 * deploys them. Every part can be killed and started again; the Teardown given ends them all.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, type CliProcess } from '../test/fixtures/cli.js';
import { freePort, startHaproxy, type Haproxy } from '../test/fixtures/haproxy.js';
import { startPostgres, type PostgresCluster } from '../test/fixtures/postgres.js';
import { startRedis, type RedisServer } from '../test/fixtures/redis.js';
import { s3rverCredentials, startS3Server, type S3Server } from '../test/fixtures/s3.js';

export interface Instance {
  name: string;
  port: number;
  process: CliProcess;
}

export interface Cluster {
  balancer: string;
  token: string;
  instances: Instance[];
  s3: S3Server;
  postgres: PostgresCluster;
  redis: RedisServer;
  haproxy: Haproxy;
  /** The bytes of the object at `key` as s3rver keeps them on disk (read without the API). */
  storedObject(key: string): Buffer | null;
  /** The key prefix every instance stores under. */
  prefix: string;
  /** SIGKILLs the instance; `start(index)` starts it again on its port. */
  kill(index: number): Promise<void>;
  start(index: number): Promise<void>;
}

/** Limits high enough that the soak's own rate is never what is refused (its callers share a few tokens). */
const generous = ['--rate-limit-read', '1000000/60', '--rate-limit-write', '1000000/60', '--rate-limit-upload', '1000000/60', '--failed-auth-limit', '1000000'];

/**
 * What has been started, to stop on the way out (the end, a failed start, Ctrl-C): run last
 * first, so that the instances stop before the balancer and the services under them.
 */
export class Teardown {
  private readonly steps: (() => Promise<unknown>)[] = [];
  private running: Promise<void> | null = null;

  add(step: () => Promise<unknown>): void {
    this.steps.push(step);
  }

  /** Runs every step once; a second call (a second signal, the end after a signal) waits for the same run. */
  run(): Promise<void> {
    this.running ??= (async () => {
      // Each step tears down what it can: one that fails must not keep the others from running.
      for (let step = this.steps.pop(); step; step = this.steps.pop()) await step().catch(() => {});
    })();
    return this.running;
  }
}

/** The services under the instances, started at once; the ones that did start are torn down when another fails. */
async function startServices(teardown: Teardown): Promise<[PostgresCluster, RedisServer, S3Server]> {
  const started = await Promise.allSettled([startPostgres(), startRedis(), startS3Server('marketkit-soak')] as const);
  for (const one of started) if (one.status === 'fulfilled') teardown.add(() => one.value.stop());
  for (const one of started) if (one.status === 'rejected') throw one.reason;
  return started.map((one) => (one as PromiseFulfilledResult<unknown>).value) as [PostgresCluster, RedisServer, S3Server];
}

/** Writes what an instance's process printed (its JSON log lines and stderr) to `dir`, one file per process. */
function keepLog(dir: string | null, one: Instance): void {
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${one.name}-${one.process.pid}.log`), `${one.process.stdout()}${one.process.stderr()}`);
}

export async function startCluster(count: number, say: (line: string) => void, teardown: Teardown, logs: string | null = null): Promise<Cluster> {
  say('starting PostgreSQL, Redis and s3rver');
  const keys = runCli(['keys', '--json']);
  const [postgres, redis, s3] = await startServices(teardown);
  const database = await postgres.createDatabase();
  const made = await keys;
  if (made.code !== 0) throw new Error(`marketkit keys failed: ${made.stderr}`);
  const { signing_secret, session_key } = JSON.parse(made.stdout);
  const env = {
    MARKETKIT_SIGNING_SECRET: signing_secret,
    MARKETKIT_SESSION_KEY: JSON.stringify(session_key),
    MARKETKIT_S3_ACCESS_KEY_ID: s3rverCredentials.accessKeyId,
    MARKETKIT_S3_SECRET_ACCESS_KEY: s3rverCredentials.secretAccessKey,
  };
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const haproxy = await startHaproxy(ports.map((port) => `127.0.0.1:${port}`));
  teardown.add(() => haproxy.stop());
  const prefix = 'soak/';
  const args = (port: number) => [
    'serve', '--json', '--host', '127.0.0.1', '--port', String(port), '--database-url', database, '--rate-limit-store', redis.url,
    '--blobs', 's3', '--s3-endpoint', s3.endpoint, '--s3-bucket', s3.bucket, '--s3-prefix', prefix, '--s3-path-style',
    '--site-url', haproxy.url, '--upload-lease', '5', ...generous,
  ];
  const serve = (port: number) => startCli(args(port), (stdout) => stdout.includes('\n'), env);
  say(`starting ${count} marketkit serve instances behind haproxy`);
  const instances: Instance[] = [];
  // At the end, whatever process each instance has then (the chaos replaces them).
  teardown.add(() => Promise.all(instances.map(async (one) => {
    await one.process.stop('SIGKILL');
    keepLog(logs, one);
  })));
  // All at once, as an operator's deployment starts them: the migrations take turns under an
  // advisory lock, and one of them makes the dev seller and prints its token.
  const started = await Promise.allSettled(ports.map((port) => serve(port)));
  for (const [i, one] of started.entries()) if (one.status === 'fulfilled') instances.push({ name: String.fromCharCode(97 + i), port: ports[i]!, process: one.value });
  for (const one of started) if (one.status === 'rejected') throw one.reason;
  const token = instances.map((one) => JSON.parse(one.process.stdout().split('\n')[0]!).dev_seller?.token).find(Boolean);
  if (!token) throw new Error("no instance printed the dev seller's token");
  await haproxy.allUp();
  const bucketDir = `${s3.directory}/${s3.bucket}`;
  return {
    balancer: haproxy.url,
    token,
    instances,
    s3,
    postgres,
    redis,
    haproxy,
    prefix,
    storedObject(key) {
      try {
        return readFileSync(`${bucketDir}/${key}._S3rver_object`);
      } catch {
        // No such object in the bucket, which is the answer asked for.
        return null;
      }
    },
    async kill(index) {
      await instances[index]!.process.stop('SIGKILL');
      keepLog(logs, instances[index]!);
    },
    async start(index) {
      const one = instances[index]!;
      // A port another process took meanwhile, or a start slower than 30 s: tried three times.
      for (let attempt = 1; ; attempt++) {
        try {
          one.process = await serve(one.port);
          return;
        } catch (error) {
          if (attempt >= 3) throw error;
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
    },
  };
}

/** The resident set (bytes) and open file descriptors of a process, from /proc; null once it is gone. */
export function processUse(pid: number | undefined): { rss: number; fds: number } | null {
  if (pid === undefined) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { rss: Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024, fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    // The process is gone (or exiting): null, as the caller is told.
    return null;
  }
}
