/**
 * A resumable upload continued by another instance: three `marketkit serve` processes on one
 * PostgreSQL database and one S3 bucket (s3rver) behind haproxy. tus-js-client starts the upload on
 * instance A directly; A is SIGKILLed mid-upload; a new tus-js-client process resumes through the
 * balancer, which can only reach B and C, from the offset A recorded, with the part list of A's S3
 * multipart upload read from the upload state in PostgreSQL, and the SHA-256 state with it.
 * `--upload-lease 2` shortens how long A's append lease outlives A (30 s by default).
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { keys, startCli, tempDir, type CliProcess } from '../fixtures/cli.js';
import { freePort, startHaproxy } from '../fixtures/haproxy.js';
import { needs } from '../fixtures/parts.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { s3rverCredentials, startS3Server, type S3Server } from '../fixtures/s3.js';
import { validAsset } from '../fixtures/server.js';
import { apiCall, bigFile, offsetOf, tusProcess } from '../fixtures/tus.js';

const MiB = 2 ** 20;
const parts = needs('postgresql', 'haproxy');
let cluster: PostgresCluster;
let s3: S3Server;
parts.before(async () => {
  [cluster, s3] = await Promise.all([startPostgres(), startS3Server()]);
});
after(async () => {
  await Promise.all([cluster?.stop(), s3?.stop()]);
});

parts.test('an upload begun on instance A, A SIGKILLed, resumed through haproxy on another instance: complete, SHA-256 right', async (t) => {
  const dir = tempDir(t);
  const url = await cluster.createDatabase();
  const env = { ...(await keys()), MARKETKIT_S3_ACCESS_KEY_ID: s3rverCredentials.accessKeyId, MARKETKIT_S3_SECRET_ACCESS_KEY: s3rverCredentials.secretAccessKey };
  const ports = await Promise.all([freePort(), freePort(), freePort()]);
  const lb = await startHaproxy(ports.map((port) => `127.0.0.1:${port}`));
  t.after(() => lb.stop());
  const start = (port: number) =>
    startCli(
      ['serve', '--json', '--host', '127.0.0.1', '--port', String(port), '--database-url', url, '--blobs', 's3', '--s3-endpoint', s3.endpoint, '--s3-bucket', s3.bucket,
        '--s3-prefix', 'resumable-instances', '--s3-path-style', '--site-url', lb.url, '--upload-lease', '2'],
      (stdout) => stdout.includes('\n'),
      env,
    );
  const instances: CliProcess[] = await Promise.all(ports.map(start));
  t.after(() => Promise.all(instances.map((one) => one.stop('SIGKILL'))));
  const token: string = instances.map((one) => JSON.parse(one.stdout().split('\n')[0]!).dev_seller.token).find(Boolean);
  await lb.allUp();
  const api = (method: string, path: string, body?: unknown) => apiCall(`${lb.url}/api/v1`, token, method, path, body);

  const file = bigFile(dir, 256);
  const asset = await api('POST', '/assets', validAsset());
  const issued = await api('POST', `/assets/${asset.body.id}/upload-url`, { filename: 'pack.bin', file_size: file.size });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  const uploadUrl: string = issued.body.upload_url;
  assert.equal(new URL(uploadUrl).origin, lb.url, 'upload_url points at the balancer');
  const onA = uploadUrl.replace(lb.url, `http://127.0.0.1:${ports[0]}`);

  const first = tusProcess(dir, file.path, file.size, { uploadUrl: onA });
  t.after(() => first.child.kill('SIGKILL'));
  await first.accepted(4);
  await instances[0]!.stop('SIGKILL');
  first.child.kill('SIGKILL');
  await first.exited;
  const reached = await offsetOf(uploadUrl);
  assert.ok(reached >= 32 * MiB && reached < file.size, `A recorded what it acknowledged, read through another instance (${reached})`);

  const before = await lb.stats();
  const second = tusProcess(dir, file.path, file.size, { uploadUrl });
  assert.equal(await second.exited, 0, JSON.stringify(second.lines));
  assert.ok(second.lines[0].firstProgress >= reached, `resumed from A's offset (${second.lines[0].firstProgress}), not from zero`);
  assert.deepEqual(second.lines.at(-1), { done: true });
  const after = await lb.stats();
  const served = (name: string) => Number(after[name]!.stot) - Number(before[name]!.stot);
  // A is dead: every answer the resume got came from B or C.
  assert.ok(served('b') + served('c') >= 2, `B and C took the resume's requests (b ${served('b')}, c ${served('c')}; a is ${after.a!.status})`);

  // While the bytes stream, a busy instance can miss haproxy's 500 ms health checks and be taken
  // out for a moment (503, Retry-After): confirm as a client would, once B or C is back.
  let confirmed: { status: number; body: any };
  for (let tries = 0; ; tries++) {
    confirmed = await api('POST', `/assets/${asset.body.id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: file.size, sha256: file.sha256 });
    if (confirmed.status !== 503 || tries >= 30) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  assert.equal(confirmed.body.file.sha256, file.sha256, 'the hash state A saved continued on B or C');
  assert.deepEqual(s3.keys('resumable-instances/'), [`resumable-instances/${issued.body.storage_path}`]);
});
