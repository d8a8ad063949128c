/**
 * Version review (issue 43): approving a version moves no bytes, so its time is flat in the file's
 * size; and a version's review reads only the zip archives' central directories. A marketplace on
 * SQLite and fs (a temporary directory), called in process through its fetch handler: per round, a
 * version with a file of 1 MiB and one of --big (default 1 GiB) are uploaded (single PUT), submitted
 * and approved; the approvals' times are compared as a ratio (the target: within 1.5x). Then an
 * archive of --entries (default 10,000) files of a kilobyte made by `zip` against one with a tenth of them
 * changed: the review's bytes read against the two files' sizes.
 *
 *   npx tsx bench/versions.bench.ts [--store sqlite|memory] [--big 1GiB] [--rounds 3] [--entries 10000]
 */
import './help.js';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fsBlobs } from '../adapters/fs/index.js';
import { sqliteStorage } from '../adapters/sqlite/index.js';
import { memoryStorage } from '../adapters/memory/index.js';
import { parseSize } from '../cli/size-flags.js';
import { createMarketplace } from '../core/marketplace.js';

const { values } = parseArgs({ options: { store: { type: 'string', default: 'sqlite' }, big: { type: 'string', default: '1GiB' }, rounds: { type: 'string', default: '3' }, entries: { type: 'string', default: '10000' } } });
const big = parseSize(values.big!) ?? 1024 ** 3;
const rounds = Number(values.rounds);
const entries = Number(values.entries);
const dir = mkdtempSync(join(tmpdir(), 'marketkit-versions-bench-'));
const serviceKey = 'versions-bench-service-key-0123456789abcdef';
const storage = values.store === 'memory' ? Object.assign(memoryStorage(), { close: async () => {} }) : await sqliteStorage({ path: join(dir, 'marketkit.db') });
const marketplace = createMarketplace({ storage, blobs: fsBlobs({ root: join(dir, 'blobs') }), serviceKey, siteUrl: 'http://bench.local', maxFileBytes: 4 * 1024 ** 3 });
const account = await marketplace.admin.createAccount({ username: 'bench-seller', seller_status: 'approved', payouts_connected: true });
const { token } = await marketplace.admin.createToken({ accountId: account.id, name: 'bench', scopes: ['assets:read', 'assets:write'] });

async function call(method: string, path: string, body?: unknown, auth = `Bearer ${token}`) {
  const response = await marketplace.fetch(new Request(`http://bench.local${path}`, { method, headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) }));
  const json = await response.json();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** A body of `size` bytes, streamed from one random MiB, never held whole. */
function streamOf(size: number): ReadableStream<Uint8Array> {
  const block = randomBytes(1024 * 1024);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= size) return controller.close();
      const piece = block.subarray(0, Math.min(block.byteLength, size - sent));
      sent += piece.byteLength;
      controller.enqueue(piece);
    },
  });
}

async function upload(signedUrl: string, size: number, body: ReadableStream<Uint8Array> | Uint8Array = streamOf(size)) {
  const response = await marketplace.fetch(new Request(signedUrl.replace(/^https?:\/\/[^/]+/, 'http://bench.local'), { method: 'PUT', headers: { 'content-type': 'application/zip', 'content-length': String(size) }, body, duplex: 'half' } as RequestInit));
  if (response.status !== 200) throw new Error(`PUT: ${response.status} ${await response.text()}`);
}

/** A published listing whose live file is `bytes` (or `size` random bytes). */
async function published(size: number, bytes?: Uint8Array): Promise<string> {
  const id = (await call('POST', '/api/v1/assets', { title: 'Bench Pack', slug: `bench-${randomBytes(6).toString('hex')}` })).id;
  const issued = await call('POST', `/api/v1/assets/${id}/upload-url`, { filename: 'pack.zip' });
  await upload(issued.signed_url, size, bytes);
  await call('POST', `/api/v1/assets/${id}/confirm-file`, { storage_path: issued.storage_path, file_size: size });
  await call('POST', `/api/v1/assets/${id}/submit`);
  await marketplace.moderation.approve(id);
  return id;
}

/** A submitted version of listing `id` whose file is `bytes` (or `size` random bytes): its id. */
async function submitted(id: string, version: string, size: number, bytes?: Uint8Array): Promise<string> {
  const made = await call('POST', `/api/v1/assets/${id}/versions`, { version });
  const issued = await call('POST', `/api/v1/assets/${id}/versions/${made.id}/upload-url`, { filename: 'next.zip' });
  await upload(issued.signed_url, size, bytes);
  await call('POST', `/api/v1/assets/${id}/versions/${made.id}/confirm-file`, { storage_path: issued.storage_path, file_size: size });
  await call('POST', `/api/v1/assets/${id}/versions/${made.id}/submit`);
  return made.id;
}

const times: Record<'small' | 'big', number[]> = { small: [], big: [] };
for (let round = 1; round <= rounds; round++) {
  for (const [name, size] of [['small', 1024 ** 2], ['big', big]] as const) {
    const id = await published(1024);
    const versionId = await submitted(id, `2.0.${round}`, size);
    const started = process.hrtime.bigint();
    await marketplace.moderation.versions.approve(versionId);
    times[name].push(Number(process.hrtime.bigint() - started) / 1e6);
  }
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const [small, large] = [median(times.small), median(times.big)];
console.log(`approve, 1 MiB file: median ${small.toFixed(2)} ms over ${rounds} rounds (${times.small.map((t) => t.toFixed(2)).join(', ')})`);
console.log(`approve, ${values.big} file: median ${large.toFixed(2)} ms (${times.big.map((t) => t.toFixed(2)).join(', ')})`);
console.log(`ratio ${(large / small).toFixed(2)}x (target: within 1.5x; no byte moves on approval)`);

const entryBytes = (i: number) => Buffer.concat([Buffer.from(`entry ${i} `), seed]).subarray(0, 1024);
const seed = randomBytes(1024);

/** A zip of `count` small files (every `changeEvery`-th one's content changed when `variant` is set). */
function archive(name: string, count: number, variant: boolean): Uint8Array {
  const root = join(dir, name);
  for (let i = 0; i < count; i++) {
    const folder = join(root, `d${Math.floor(i / 500)}`);
    if (i % 500 === 0) mkdirSync(folder, { recursive: true });
    // A kilobyte of its own (the same bytes in both archives unless changed), stored incompressible.
    writeFileSync(join(folder, `f${i}.bin`), variant && i % 10 === 0 ? randomBytes(1024) : entryBytes(i));
  }
  execFileSync('zip', ['-q', '-r', join(dir, `${name}.zip`), '.'], { cwd: root });
  return readFileSync(join(dir, `${name}.zip`));
}

const liveZip = archive('live', entries, false);
const nextZip = archive('next', entries, true);
const id = await published(liveZip.byteLength, liveZip);
const versionId = await submitted(id, '9.0.0', nextZip.byteLength, nextZip);
const started = process.hrtime.bigint();
const review = await call('GET', `/api/admin/versions/${versionId}/review`, undefined, `Bearer ${serviceKey}`);
const ms = Number(process.hrtime.bigint() - started) / 1e6;
const total = liveZip.byteLength + nextZip.byteLength;
console.log(
  `review of two archives of ${entries} entries (${(total / 1024 ** 2).toFixed(1)} MiB together): ${review.archive.changed.length} changed, ${review.archive.added.length} added, ${review.archive.removed.length} removed, ` +
    `${(review.archive.bytes_read / 1024).toFixed(0)} KiB read (${((100 * review.archive.bytes_read) / total).toFixed(1)} % of the files, their central directories), ${ms.toFixed(0)} ms`,
);
await storage.close();
rmSync(dir, { recursive: true, force: true });
