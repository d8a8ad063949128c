/**
 * Uploads of a creator-sized file (#29): `marketkit serve` on fs taking it through the single PUT
 * and through the resumable protocol (tus PATCHes of the typed client's default 8 MiB chunk, each with its
 * Upload-Checksum), against bare node:http streaming a PUT body to a file with the same
 * durability (bench/bare-upload-server.ts, the ceiling on this machine); and `serve --blobs s3` on
 * s3rver taking it resumably (an S3 multipart upload through the server) against the direct PUT to
 * s3rver that its signed_url is. Every server is a child; the bench process is the client, on the
 * other core. Rounds alternate the servers; throughput is the mean over rounds, and each server's
 * RSS growth is its peak during the uploads less its resident size before them.
 *
 *   npx tsx bench/uploads.bench.ts [--size 1GiB] [--rounds 2] [--chunk 8MiB] [--no-s3]
 */
import './help.js';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseSize } from '../cli/size-flags.js';
import { startCliServer, type ServerProcess } from '../test/fixtures/cli.js';
import { startS3Server, s3rverCredentials } from '../test/fixtures/s3.js';
import { startChild, stopChild } from './lib.js';

const { values } = parseArgs({
  options: { size: { type: 'string', default: '1GiB' }, rounds: { type: 'string', default: '2' }, chunk: { type: 'string', default: '8MiB' }, 's3': { type: 'boolean', default: true } },
  allowNegative: true,
});
const sizeOf = (text: string) => parseSize(text) ?? (() => { throw new Error(`not a size: ${text}`); })();
const size = sizeOf(values.size!);
const chunk = sizeOf(values.chunk!);
const rounds = Number(values.rounds);
const block = randomBytes(1024 * 1024);
const mib = 1024 * 1024;

/** The file's bytes from offset `from`, `count` of them: a repeated random megabyte, never held whole. */
function* bytes(from: number, count: number): Generator<Buffer> {
  for (let at = from; at < from + count; ) {
    const start = at % block.byteLength;
    const piece = block.subarray(start, Math.min(block.byteLength, start + (from + count - at)));
    yield piece;
    at += piece.byteLength;
  }
}

function expectedSha256(): string {
  const hash = createHash('sha256');
  for (const piece of bytes(0, size)) hash.update(piece);
  return hash.digest('hex');
}

/** One HTTP request streaming `count` bytes from `from`; resolves with its status, headers and body. */
function send(url: string, method: string, headers: Record<string, string | number>, from: number, count: number) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request(url, { method, headers: { ...headers, 'content-length': count } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (text) => (body += text));
      res.once('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.once('error', reject);
    const pieces = bytes(from, count);
    const pump = () => {
      for (let next = pieces.next(); !next.done; next = pieces.next()) if (!req.write(next.value)) return void req.once('drain', pump);
      req.end();
    };
    pump();
  });
}

/** Resident and peak resident memory of a process, in bytes (Linux /proc). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/** Resets a process's peak (VmHWM) to its current RSS, where the kernel lets us; false otherwise. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

interface Sample {
  seconds: number;
  rssGrowth: number;
}

async function measure(pid: number, upload: () => Promise<void>): Promise<Sample> {
  resetPeak(pid);
  const before = memory(pid).rss;
  const start = performance.now();
  await upload();
  const seconds = (performance.now() - start) / 1000;
  return { seconds, rssGrowth: Math.max(0, memory(pid).peak - before) };
}

async function api(server: ServerProcess, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.info.api}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.info.dev_seller.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as Record<string, any>;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

let slug = 0;
/** A new listing and its upload URLs for a file of `size` bytes. */
async function issue(server: ServerProcess): Promise<{ assetId: string; signed: string; resumable: string; storagePath: string }> {
  const asset = await api(server, 'POST', '/assets', { title: 'Castle pack', slug: `castle-pack-bench-${Date.now()}-${++slug}`, tags: ['castle'], visibility: 'public' });
  const issued = await api(server, 'POST', `/assets/${asset.id}/upload-url`, { filename: 'pack.zip', file_size: size });
  return { assetId: asset.id, signed: issued.signed_url, resumable: issued.upload_url, storagePath: issued.storage_path };
}

async function confirm(server: ServerProcess, upload: { assetId: string; storagePath: string }, sha256: string): Promise<void> {
  await api(server, 'POST', `/assets/${upload.assetId}/confirm-file`, { storage_path: upload.storagePath, file_size: size, sha256 });
  await api(server, 'DELETE', `/assets/${upload.assetId}`);
}

async function singlePut(url: string, headers: Record<string, string> = {}): Promise<void> {
  const answer = await send(url, 'PUT', { 'content-type': 'application/zip', ...headers }, 0, size);
  if (answer.status >= 300) throw new Error(`PUT ${answer.status}: ${answer.body}`);
}

/** The resumable protocol as the typed client sends it: PATCHes of `chunk` bytes, each with its checksum. */
async function resumablePut(url: string): Promise<void> {
  for (let offset = 0; offset < size; ) {
    const count = Math.min(chunk, size - offset);
    const digest = createHash('sha256');
    for (const piece of bytes(offset, count)) digest.update(piece);
    const answer = await send(url, 'PATCH', {
      'tus-resumable': '1.0.0',
      'content-type': 'application/offset+octet-stream',
      'upload-offset': offset,
      'upload-checksum': `sha256 ${digest.digest('base64')}`,
    }, offset, count);
    if (answer.status !== 204) throw new Error(`PATCH at ${offset}: ${answer.status} ${answer.body}`);
    offset = Number(answer.headers['upload-offset']);
  }
}

const mbps = (sample: Sample[]) => size / mib / (sample.reduce((sum, s) => sum + s.seconds, 0) / sample.length);
const peakGrowth = (sample: Sample[]) => Math.max(...sample.map((s) => s.rssGrowth)) / mib;
const line = (name: string, sample: Sample[], baseline?: Sample[]) =>
  `  ${name.padEnd(40)} ${mbps(sample).toFixed(0).padStart(5)} MiB/s   RSS +${peakGrowth(sample).toFixed(1).padStart(5)} MiB${baseline ? `   ${(mbps(sample) / mbps(baseline)).toFixed(2)} of ${baseline === bare ? 'the bare server' : 'the direct PUT'}` : ''}`;
const floor = (name: string, met: boolean) => console.log(`  floor: ${name}: ${met ? 'met' : 'NOT met'}`);

const sha256 = expectedSha256();
const sizeArgs = ['--max-upload-size', String(size), '--upload-min-rate', '0'];
const dataDir = mkdtempSync(join(tmpdir(), 'marketkit-bench-uploads-'));
const bareChild = await startChild<{ url: string }>(new URL('bare-upload-server.ts', import.meta.url).pathname, []);
const fs = await startCliServer(['--data-dir', dataDir, ...sizeArgs]);
const bare: Sample[] = [];
const fsPut: Sample[] = [];
const fsResumable: Sample[] = [];
try {
  for (let round = 0; round < rounds; round++) {
    bare.push(await measure(bareChild.child.pid!, () => singlePut(bareChild.info.url)));
    const put = await issue(fs);
    fsPut.push(await measure(fs.pid, () => singlePut(put.signed)));
    await confirm(fs, put, sha256);
    const resumable = await issue(fs);
    fsResumable.push(await measure(fs.pid, () => resumablePut(resumable.resumable)));
    await api(fs, 'DELETE', `/assets/${resumable.assetId}`);
  }
} finally {
  await stopChild(bareChild.child);
  await fs.stop('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(`upload of ${(size / mib).toFixed(0)} MiB, ${rounds} rounds, resumable in ${(chunk / mib).toFixed(0)} MiB PATCHes with Upload-Checksum`);
console.log(line('bare node:http to a file, fsynced', bare));
console.log(line('serve on fs, single PUT', fsPut, bare));
console.log(line('serve on fs, resumable (tus)', fsResumable, bare));
floor('fs single PUT at least 0.7 of the bare server', mbps(fsPut) >= 0.7 * mbps(bare));
floor('fs resumable at least 0.5 of the bare server', mbps(fsResumable) >= 0.5 * mbps(bare));
floor('RSS growth under 64 MiB (fs)', peakGrowth(fsPut) < 64 && peakGrowth(fsResumable) < 64);

if (values.s3) {
  const s3 = await startS3Server('marketkit-bench');
  const s3Serve = await startCliServer(['--memory', '--blobs', 's3', '--s3-bucket', s3.bucket, '--s3-endpoint', s3.endpoint, '--s3-path-style', ...sizeArgs], {
    AWS_ACCESS_KEY_ID: s3rverCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3rverCredentials.secretAccessKey,
  });
  const direct: Sample[] = [];
  const s3Resumable: Sample[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      // signed_url on S3 is the store's own presigned PUT: the client's bytes never pass the server.
      const put = await issue(s3Serve);
      direct.push(await measure(s3Serve.pid, () => singlePut(put.signed)));
      await api(s3Serve, 'DELETE', `/assets/${put.assetId}`);
      const resumable = await issue(s3Serve);
      s3Resumable.push(await measure(s3Serve.pid, () => resumablePut(resumable.resumable)));
      await confirm(s3Serve, resumable, sha256);
    }
  } finally {
    await s3Serve.stop('SIGTERM');
    await s3.stop();
  }
  console.log(line('direct PUT to s3rver (signed_url)', direct));
  console.log(line('serve on S3, resumable (multipart)', s3Resumable, direct));
  floor('RSS growth under 64 MiB (S3 resumable)', peakGrowth(s3Resumable) < 64);
}
