/**
 * `marketkit serve --blobs s3`, as a user runs it: the command in its own process, configured
 * by flags or by the environment, serving the whole upload flow into an s3rver bucket.
 */
import { curlWithJson } from '../fixtures/curl.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { runCli, startCliServer, tempDir, type Runtime } from '../fixtures/cli.js';
import { s3rverCredentials, startS3Server, type S3Server } from '../fixtures/s3.js';
import { webpBytes } from '../fixtures/server.js';

const execFileAsync = promisify(execFile);

let s3: S3Server;
before(async () => {
  s3 = await startS3Server();
});
after(() => s3.stop());

/** Every setting the command reads, blank (so nothing of the caller's environment leaks in), then `set`. */
function env(set: Record<string, string> = {}): Record<string, string> {
  const blank = Object.fromEntries(
    ['MARKETKIT_BLOBS', 'MARKETKIT_S3_ENDPOINT', 'MARKETKIT_S3_REGION', 'MARKETKIT_S3_BUCKET', 'MARKETKIT_S3_PREFIX', 'MARKETKIT_S3_PATH_STYLE', 'MARKETKIT_S3_PUBLIC_URL',
      'MARKETKIT_S3_ACCESS_KEY_ID', 'MARKETKIT_S3_SECRET_ACCESS_KEY', 'MARKETKIT_S3_SESSION_TOKEN', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_REGION', 'AWS_DEFAULT_REGION'].map((name) => [name, '']),
  );
  return { ...blank, ...set };
}
const keys = { MARKETKIT_S3_ACCESS_KEY_ID: s3rverCredentials.accessKeyId, MARKETKIT_S3_SECRET_ACCESS_KEY: s3rverCredentials.secretAccessKey };

async function json(response: Response) {
  return { status: response.status, body: (await response.json()) as any };
}

// On Bun and Deno too: the adapter uses only fetch and Web Crypto (through aws4fetch).
const runtimes: Runtime[] = ['node', 'bun', 'deno'];
for (const runtime of runtimes) test(`marketkit serve --blobs s3 on ${runtime} serves the full upload flow, and the objects are in the bucket`, async (t) => {
  const dir = tempDir(t);
  const prefix = `cli-${runtime}-${crypto.randomUUID()}`;
  const server = await startCliServer(['--data-dir', dir, '--blobs', 's3', '--s3-endpoint', s3.endpoint, '--s3-bucket', s3.bucket, '--s3-path-style', '--s3-prefix', prefix], env(keys), runtime);
  t.after(() => server.stop());
  assert.deepEqual(server.info.storage, { kind: 'sqlite', database: server.info.storage.kind === 'sqlite' ? server.info.storage.database : '', blobs: `s3://${s3.bucket}/${prefix}/ at ${s3.endpoint}` });
  const auth = { authorization: `Bearer ${server.info.dev_seller.token}`, 'content-type': 'application/json' };
  const post = (path: string, body?: unknown) => fetch(`${server.info.api}${path}`, { method: 'POST', headers: auth, ...(body ? { body: JSON.stringify(body) } : {}) }).then(json);

  const created = await post('/assets', { title: 'Castle Pack', slug: `castle-${prefix}` });
  assert.equal(created.status, 201);
  const id = created.body.id;
  const issued = await post(`/assets/${id}/upload-url`, { filename: 'pack.zip' });
  assert.equal(new URL(issued.body.signed_url).origin, s3.endpoint, 'the PUT goes to the S3 server');
  const bytes = crypto.getRandomValues(new Uint8Array(30_000));
  assert.equal((await fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: bytes })).status, 200);
  assert.equal((await post(`/assets/${id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: bytes.byteLength })).status, 200);
  const image = await post(`/assets/${id}/images/upload-url`, { filename: 'cover.webp' });
  assert.equal((await fetch(image.body.signed_url, { method: 'PUT', headers: { 'content-type': 'image/webp' }, body: webpBytes })).status, 200);
  assert.equal((await post(`/assets/${id}/confirm-image`, { public_url: image.body.public_url })).status, 201);
  const submitted = await post(`/assets/${id}/submit`);
  assert.deepEqual([submitted.status, submitted.body.status], [200, 'pending']);

  assert.deepEqual(s3.keys(`${prefix}/assets/${id}/`), [`${prefix}/${image.body.storage_path}`, `${prefix}/${issued.body.storage_path}`].sort());
  // The image, read back from the bucket and streamed by the marketplace.
  const served = await fetch(image.body.public_url);
  assert.equal(served.status, 200);
  assert.deepEqual(new Uint8Array(await served.arrayBuffer()), webpBytes);
  const health = await fetch(`${server.info.api}/health`).then(json);
  assert.deepEqual([health.status, health.body.checks.blobs], [200, 'ok']);
});

test('the S3 settings can all come from the environment', async (t) => {
  const server = await startCliServer(['--memory'], env({ ...keys, MARKETKIT_BLOBS: 's3', MARKETKIT_S3_ENDPOINT: s3.endpoint, MARKETKIT_S3_BUCKET: s3.bucket, MARKETKIT_S3_PATH_STYLE: 'true', MARKETKIT_S3_PREFIX: 'from-env' }));
  t.after(() => server.stop());
  assert.deepEqual(server.info.storage, { kind: 'memory', blobs: `s3://${s3.bucket}/from-env/ at ${s3.endpoint}` });
  const auth = { authorization: `Bearer ${server.info.dev_seller.token}`, 'content-type': 'application/json' };
  const created = await fetch(`${server.info.api}/assets`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'Env Pack', slug: 'env-pack' }) }).then(json);
  const issued = await fetch(`${server.info.api}/assets/${created.body.id}/upload-url`, { method: 'POST', headers: auth, body: JSON.stringify({ filename: 'a.zip' }) }).then(json);
  assert.match(issued.body.signed_url, new RegExp(`^${s3.endpoint}/${s3.bucket}/from-env/staging/assets/`));
});

test('bad S3 settings stop the start with exit code 2 and a message naming the flag or variable to fix', async () => {
  const common = ['serve', '--memory', '--port', '0'];
  const cases: [string[], Record<string, string>, RegExp][] = [
    [['--blobs', 's3'], keys, /--s3-bucket \(or MARKETKIT_S3_BUCKET\) is required with --blobs s3/],
    [['--blobs', 's3', '--s3-bucket', 'Bad_Name'], keys, /--s3-bucket \(MARKETKIT_S3_BUCKET\) must be an S3 bucket name/],
    [['--blobs', 's3', '--s3-bucket', 'ok-bucket', '--s3-endpoint', 'localhost:9000'], keys, /--s3-endpoint \(MARKETKIT_S3_ENDPOINT\) must be an/],
    [['--blobs', 's3', '--s3-bucket', 'ok-bucket', '--s3-endpoint', s3.endpoint], {}, /set MARKETKIT_S3_ACCESS_KEY_ID and MARKETKIT_S3_SECRET_ACCESS_KEY \(or AWS_ACCESS_KEY_ID/],
    [['--blobs', 's3', '--s3-bucket', 'no-such-bucket', '--s3-endpoint', s3.endpoint, '--s3-path-style'], keys, /the S3 bucket s3:\/\/no-such-bucket\/ at .* did not answer \(HEAD of the bucket answered 404.*Check the endpoint, the bucket name/],
    [['--blobs', 'gcs'], keys, /--blobs \(MARKETKIT_BLOBS\) must be fs, s3 or memory, not "gcs"/],
    [['--s3-bucket', 'ok-bucket'], keys, /--s3-bucket only apply with --blobs s3/],
  ];
  for (const [args, set, message] of cases) {
    const run = await runCli([...common, ...args], env(set));
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message, args.join(' '));
    assert.ok(!run.stderr.includes('    at '), 'no stack trace');
  }
});

test('the MinIO walk-through of docs/adapters.md: the README curl script (docs/examples/upload-flow.sh) runs unchanged against serve --blobs s3', async (t) => {
  if (!(await curlWithJson(t))) return;
  const dir = tempDir(t);
  const prefix = `walkthrough-${crypto.randomUUID()}`;
  // The flags of the MinIO example, with s3rver standing in for MinIO.
  const server = await startCliServer(['--data-dir', dir, '--blobs', 's3', '--s3-endpoint', s3.endpoint, '--s3-bucket', s3.bucket, '--s3-path-style', '--s3-prefix', prefix], env(keys));
  t.after(() => server.stop());
  writeFileSync(join(dir, 'pack.zip'), crypto.getRandomValues(new Uint8Array(3000)));
  writeFileSync(join(dir, 'cover.webp'), webpBytes);
  const { stdout } = await execFileAsync('bash', ['docs/examples/upload-flow.sh', join(dir, 'pack.zip'), join(dir, 'cover.webp')], {
    env: { ...process.env, MARKETKIT_URL: server.info.url, MARKETKIT_TOKEN: server.info.dev_seller.token! },
  });
  assert.match(stdout, /file confirmed \(3000 bytes\)/);
  assert.match(stdout, /submitted: pending/);
  const id = /created ([0-9a-f-]{36})/.exec(stdout)![1];
  assert.equal(s3.keys(`${prefix}/assets/${id}/`).length, 2, 'the file and the image are in the bucket');
});
