/**
 * The deployment the soak runs against (docs/operations.md, "Soak and chaos"): PostgreSQL, Redis
 * (the rate limits' store) and s3rver, each a throwaway process on a free port of 127.0.0.1, N
 * `marketkit serve` instances on them behind haproxy with health checks, as docs/deploy.md
 * deploys them. Every part can be killed and started again; `stop()` ends them all.
 */
import { readFileSync, readdirSync } from 'node:fs';
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
  stop(): Promise<void>;
}

/** Limits high enough that the soak's own rate is never what is refused (its callers share a few tokens). */
const generous = ['--rate-limit-read', '1000000/60', '--rate-limit-write', '1000000/60', '--rate-limit-upload', '1000000/60', '--failed-auth-limit', '1000000'];

export async function startCluster(count: number, say: (line: string) => void): Promise<Cluster> {
  say('starting PostgreSQL, Redis and s3rver');
  const [postgres, redis, s3] = await Promise.all([startPostgres(), startRedis(), startS3Server('marketkit-soak')]);
  const database = await postgres.createDatabase();
  const made = await runCli(['keys', '--json']);
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
  const prefix = 'soak/';
  const args = (port: number) => [
    'serve', '--json', '--host', '127.0.0.1', '--port', String(port), '--database-url', database, '--rate-limit-store', redis.url,
    '--blobs', 's3', '--s3-endpoint', s3.endpoint, '--s3-bucket', s3.bucket, '--s3-prefix', prefix, '--s3-path-style',
    '--site-url', haproxy.url, '--upload-lease', '5', ...generous,
  ];
  say(`starting ${count} instances behind haproxy`);
  const instances: Instance[] = [];
  for (const [i, port] of ports.entries()) {
    // One at a time: the first migrates the database and makes the dev seller.
    instances.push({ name: String.fromCharCode(97 + i), port, process: await startCli(args(port), (stdout) => stdout.includes('\n'), env) });
  }
  const token = instances.map((one) => JSON.parse(one.process.stdout().split('\n')[0]!).dev_seller?.token).find(Boolean);
  if (!token) throw new Error('no instance printed the dev seller\'s token');
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
        return null;
      }
    },
    async kill(index) {
      await instances[index]!.process.stop('SIGKILL');
    },
    async start(index) {
      const one = instances[index]!;
      one.process = await startCli(args(one.port), (stdout) => stdout.includes('\n'), env);
    },
    async stop() {
      await Promise.all(instances.map((one) => one.process.stop('SIGKILL')));
      await Promise.allSettled([haproxy.stop(), postgres.stop(), redis.stop(), s3.stop()]);
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
    return null;
  }
}
