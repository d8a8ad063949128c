/**
 * The storage quota under concurrency (issue 29, item 5; docs/uploads.md, "Quota"): uploads reserve
 * their bytes in one atomic step, so concurrent PUTs and confirmations past the quota, on one
 * instance or on several sharing one PostgreSQL, never keep or confirm more than the quota; the
 * refused get 413 STORAGE_QUOTA_EXCEEDED and keep nothing. On fs (the bytes come through the
 * marketplace) and on S3 (s3rver: the bytes go straight to the store, and confirm is where the
 * quota holds). And a reservation is given back when an upload is refused, fails, is terminated,
 * replaced or swept. And across processes: two `marketkit serve` on one SQLite file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { postgresStorage } from '../../adapters/postgres/index.js';
import { s3Blobs } from '../../adapters/s3/index.js';
import type { BlobPort } from '../../core/ports/blobs.js';
import type { ClockPort } from '../../core/ports/clock.js';
import { keys, startCliServer, tempDir } from '../fixtures/cli.js';
import { bytesUnder } from '../fixtures/files.js';
import { needs } from '../fixtures/parts.js';
import { s3rverCredentials, startS3Server, type S3Server } from '../fixtures/s3.js';
import { as, pngBytes, startServer, validAsset, type TestAccount, type TestServer } from '../fixtures/server.js';
import { sharedCluster, startServerOn, stopStores, withCleanup } from '../fixtures/stores.js';

const KB = 1000;
const quota = 300 * KB;
const parts = needs('postgresql');

let s3: S3Server;
before(async () => {
  s3 = await startS3Server();
});
after(async () => {
  await s3?.stop();
  await stopStores();
});

/** A store to run the scenarios on: the instances (one, or several on one database), and the bytes its blobs hold. */
interface Setup {
  instances: TestServer[];
  storedBytes(): number;
  /** Whether the bytes of a signed_url PUT go through the marketplace (fs) or straight to the store (S3). */
  direct: boolean;
}

const realClock: ClockPort = { now: () => Date.now() };
const secret = 'quota-test-signing-secret-of-32-bytes-or-more';

function fsSetup(t: { after(fn: () => unknown): void }): { blobs: BlobPort; storedBytes: () => number } {
  const root = mkdtempSync(join(tmpdir(), 'marketkit-quota-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  return { blobs: fsBlobs({ root }), storedBytes: () => bytesUnder(join(root, 'objects')) };
}

function s3Setup(): { blobs: BlobPort; storedBytes: () => number } {
  const blobs = s3Blobs({ endpoint: s3.endpoint, bucket: s3.bucket, pathStyle: true, prefix: `quota-${crypto.randomUUID()}`, ...s3rverCredentials, clock: realClock, env: {} });
  const object = (key: string) => join(s3.directory, s3.bucket, `${key}._S3rver_object`);
  return { blobs, storedBytes: () => s3.keys(blobs.settings.prefix).reduce((sum, key) => sum + statSync(object(key)).size, 0) };
}

/** `instances` marketplaces on one new PostgreSQL database and the same blobs, signing URLs with one secret. */
async function onPostgres(t: { after(fn: () => unknown): void }, blobs: BlobPort, instances: number): Promise<TestServer[]> {
  const url = await (await sharedCluster()).createDatabase();
  const servers: TestServer[] = [];
  for (let i = 0; i < instances; i++) {
    const storage = await postgresStorage({ url, poolSize: 6 });
    servers.push(withCleanup(await startServer({ storage, blobs, clock: realClock, signingSecret: secret, storageQuotaBytes: quota }), () => storage.close()));
  }
  t.after(async () => {
    for (const server of servers) await server.close();
  });
  return servers;
}

/** The URL on instance `i` (signed_url and upload_url carry the issuing instance's site URL). */
const via = (setup: Setup, i: number, url: string) => {
  if (setup.direct) return url;
  const target = new URL(setup.instances[i % setup.instances.length]!.url);
  const moved = new URL(url);
  moved.protocol = target.protocol;
  moved.host = target.host;
  return moved.toString();
};
const clientOn = (setup: Setup, i: number, seller: TestAccount) => as(setup.instances[i % setup.instances.length]!, seller.token);
const put = (url: string, body: Uint8Array, contentType = 'application/zip') => fetch(url, { method: 'PUT', headers: { 'content-type': contentType }, body: body as BodyInit });
const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((count, status) => ({ ...count, [status]: (count[status] ?? 0) + 1 }), {});

/** 30 listings of a fresh seller, each with a file upload URL (issued round the instances). */
async function thirtyUploads(setup: Setup, seller: TestAccount) {
  return Promise.all(
    Array.from({ length: 30 }, async (_, i) => {
      const client = clientOn(setup, i, seller);
      const id = (await client.post('/assets', validAsset())).body.id as string;
      const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip' })).body;
      return { id, issued };
    }),
  );
}

async function thirtyPutsPastTheQuota(setup: Setup) {
  const seller = await setup.instances[0]!.account();
  const before = setup.storedBytes();
  const uploads = await thirtyUploads(setup, seller);
  const puts = await Promise.all(uploads.map(async ({ issued }, i) => {
    const answer = await put(via(setup, i, issued.signed_url), new Uint8Array(100 * KB));
    return { status: answer.status, body: answer.status === 200 ? null : ((await answer.text()) as string) };
  }));
  if (!setup.direct) {
    // Through the marketplace the PUT itself is refused: three fit, and only their bytes are kept.
    assert.deepEqual(tally(puts.map((p) => p.status)), { 200: 3, 413: 27 });
    for (const refused of puts.filter((p) => p.status === 413)) assert.equal(JSON.parse(refused.body!).code, 'STORAGE_QUOTA_EXCEEDED');
    assert.equal(setup.storedBytes() - before, 3 * 100 * KB);
  } else {
    assert.deepEqual(tally(puts.map((p) => p.status)), { 200: 30 }, 'a presigned PUT goes to the store, which knows no quota');
  }
  // Every listing confirms at once: never more than the quota confirmed, and the refused keep nothing.
  const confirms = await Promise.all(uploads.map(({ id, issued }, i) => clientOn(setup, i + 1, seller).post(`/assets/${id}/confirm-file`, { storage_path: issued.storage_path, file_size: 100 * KB })));
  const confirmed = confirms.filter((c) => c.status === 200).length;
  assert.equal(confirmed, 3, JSON.stringify(tally(confirms.map((c) => c.status))));
  for (const refused of confirms.filter((c) => c.status !== 200)) {
    assert.ok([400, 413].includes(refused.status), `${refused.status} ${JSON.stringify(refused.body)}`);
    if (setup.direct) assert.equal(refused.body.code, 'STORAGE_QUOTA_EXCEEDED');
  }
  assert.equal(setup.storedBytes() - before, 3 * 100 * KB, 'the bytes kept are the confirmed ones');
  assert.equal(await setup.instances[0]!.marketplace.ports.storage.storageUse(seller.id), 3 * 100 * KB);
}

async function declaredSizesPastTheQuota(setup: Setup) {
  const seller = await setup.instances[0]!.account();
  const client = clientOn(setup, 0, seller);
  const id = (await client.post('/assets', validAsset())).body.id as string;
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => clientOn(setup, i, seller).post(`/assets/${id}/images/upload-url`, { filename: 'shot.png', file_size: 100 * KB })));
  assert.deepEqual(tally(answers.map((a) => a.status)), { 200: 3, 413: 27 });
  for (const refused of answers.filter((a) => a.status === 413)) {
    assert.equal(refused.body.code, 'STORAGE_QUOTA_EXCEEDED');
    assert.equal(refused.body.details[0].path, 'file_size');
  }
  assert.equal(await setup.instances[0]!.marketplace.ports.storage.storageUse(seller.id), 3 * 100 * KB, 'the refused reserved nothing');
}

async function eightImageConfirmsPastTheQuota(setup: Setup) {
  const seller = await setup.instances[0]!.account();
  const id = (await clientOn(setup, 0, seller).post('/assets', validAsset())).body.id as string;
  const before = setup.storedBytes();
  const image = new Uint8Array(110 * KB);
  image.set(pngBytes);
  // Uploaded one after another where the marketplace takes the bytes (two fit), all eight where the store does.
  const issued: { public_url: string }[] = [];
  for (let i = 0; i < 8; i++) {
    const url = (await clientOn(setup, i, seller).post(`/assets/${id}/images/upload-url`, { filename: 'shot.png' })).body;
    const status = (await put(via(setup, i, url.signed_url), image, 'image/png')).status;
    assert.equal(status, setup.direct || i < 2 ? 200 : 413);
    issued.push(url);
  }
  const confirms = await Promise.all(issued.map((url, i) => clientOn(setup, i + 1, seller).post(`/assets/${id}/confirm-image`, { public_url: url.public_url })));
  assert.equal(confirms.filter((c) => c.status === 201).length, 2, JSON.stringify(tally(confirms.map((c) => c.status))));
  if (setup.direct) for (const refused of confirms.filter((c) => c.status !== 201)) assert.deepEqual([refused.status, refused.body.code], [413, 'STORAGE_QUOTA_EXCEEDED']);
  assert.equal(setup.storedBytes() - before, 2 * 110 * KB);
  assert.equal((await clientOn(setup, 0, seller).get(`/assets/${id}`)).body.images.length, 2);
}

function scenarios(name: string, make: (t: { after(fn: () => unknown): void }) => Promise<Setup>, testOf: typeof test = test) {
  describe(name, () => {
    testOf('30 concurrent PUTs of 100 KB under a 300 KB quota, then 30 confirmations: 3 kept and confirmed, the rest 413 and nothing kept', async (t) => thirtyPutsPastTheQuota(await make(t)));
    testOf('30 concurrent upload-urls declaring 100 KB: 3 reserved, 27 refused naming file_size', async (t) => declaredSizesPastTheQuota(await make(t)));
    testOf('8 concurrent confirm-image of 110 KB under 300 KB: 2 confirmed, the rest refused, nothing past the quota kept', async (t) => eightImageConfirmsPastTheQuota(await make(t)));
  });
}

scenarios('the quota on fs, one instance (SQLite)', async (t) => {
  const { blobs, storedBytes } = fsSetup(t);
  const server = await startServerOn('sqlite', { blobs, storageQuotaBytes: quota });
  t.after(() => server.close());
  return { instances: [server], storedBytes, direct: false };
});
scenarios('the quota on S3 (s3rver), one instance', async (t) => {
  const { blobs, storedBytes } = s3Setup();
  const server = await startServer({ blobs, clock: realClock, storageQuotaBytes: quota });
  t.after(() => server.close());
  return { instances: [server], storedBytes, direct: true };
});
scenarios('the quota on fs, three instances on one PostgreSQL', async (t) => {
  const { blobs, storedBytes } = fsSetup(t);
  return { instances: await onPostgres(t, blobs, 3), storedBytes, direct: false };
}, parts.test);
scenarios('the quota on S3 (s3rver), three instances on one PostgreSQL', async (t) => {
  const { blobs, storedBytes } = s3Setup();
  return { instances: await onPostgres(t, blobs, 3), storedBytes, direct: true };
}, parts.test);

describe('a reservation is given back (fs, one instance)', () => {
  async function seller(t: { after(fn: () => unknown): void }) {
    const { blobs, storedBytes } = fsSetup(t);
    const server = await startServer({ blobs, storageQuotaBytes: quota });
    t.after(() => server.close());
    const client = as(server, server.seller.token);
    const listing = async () => (await client.post('/assets', validAsset())).body.id as string;
    const use = () => server.marketplace.ports.storage.storageUse(server.seller.id);
    return { server, client, listing, use, storedBytes };
  }

  test('a file being replaced does not count against its replacement: 250 KB replaces 100 KB under 300 KB', async (t) => {
    const { client, listing, use } = await seller(t);
    const id = await listing();
    const first = (await client.post(`/assets/${id}/upload-url`, { filename: 'a.zip' })).body;
    assert.equal((await put(first.signed_url, new Uint8Array(100 * KB))).status, 200);
    assert.equal((await client.post(`/assets/${id}/confirm-file`, { storage_path: first.storage_path, file_size: 100 * KB })).status, 200);
    const next = (await client.post(`/assets/${id}/upload-url`, { filename: 'b.zip', file_size: 250 * KB })).body;
    assert.ok(next.signed_url, 'the declared size is reserved');
    assert.equal((await put(next.signed_url, new Uint8Array(250 * KB))).status, 200);
    assert.equal((await client.post(`/assets/${id}/confirm-file`, { storage_path: next.storage_path, file_size: 250 * KB })).status, 200);
    assert.equal(await use(), 250 * KB);
    // Another listing's file is not replaced by it: it counts.
    const other = await listing();
    const refused = await client.post(`/assets/${other}/upload-url`, { filename: 'c.zip', file_size: 100 * KB });
    assert.deepEqual([refused.status, refused.body.code], [413, 'STORAGE_QUOTA_EXCEEDED']);
  });

  test('a PUT refused for the quota (declared, or streamed without a length) keeps nothing and reserves nothing: a smaller one fits', async (t) => {
    const { client, listing, use, storedBytes } = await seller(t);
    const id = await listing();
    const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'a.zip' })).body;
    const refused = await put(issued.signed_url, new Uint8Array(400 * KB));
    assert.deepEqual([refused.status, (await refused.json()).code], [413, 'STORAGE_QUOTA_EXCEEDED']);
    // Chunked (no Content-Length): reserved as it arrives, refused where the quota ends.
    const chunks = Array.from({ length: 40 }, () => new Uint8Array(10 * KB));
    const streamed = await fetch(issued.signed_url, {
      method: 'PUT',
      headers: { 'content-type': 'application/zip' },
      body: new ReadableStream({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()!) : c.close()) }),
      duplex: 'half',
    } as RequestInit);
    assert.deepEqual([streamed.status, (await streamed.json()).code], [413, 'STORAGE_QUOTA_EXCEEDED']);
    assert.equal(await use(), 0);
    assert.equal(storedBytes(), 0);
    assert.equal((await put(issued.signed_url, new Uint8Array(250 * KB))).status, 200);
    assert.equal(await use(), 250 * KB);
  });

  test('a declared size stays reserved while its PUT streams without a length: no other upload takes the room meanwhile', async (t) => {
    const { client, listing, use } = await seller(t);
    const id = await listing();
    const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'a.zip', file_size: 250 * KB })).body;
    let release!: () => void;
    const halfway = new Promise<void>((resolve) => (release = resolve));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 100 * KB) await halfway;
        if (sent === 250 * KB) return controller.close();
        sent += 10 * KB;
        controller.enqueue(new Uint8Array(10 * KB));
      },
    });
    const putting = fetch(issued.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body, duplex: 'half' } as RequestInit);
    while (sent < 100 * KB) await new Promise((r) => setTimeout(r, 10));
    assert.equal(await use(), 250 * KB, 'the whole declared size, not what arrived so far');
    const other = await client.post(`/assets/${await listing()}/upload-url`, { filename: 'b.zip', file_size: 100 * KB });
    assert.deepEqual([other.status, other.body.code], [413, 'STORAGE_QUOTA_EXCEEDED']);
    release();
    assert.equal((await putting).status, 200);
    assert.equal(await use(), 250 * KB);
  });

  test('a tus creation reserves its Upload-Length: past the quota 413 and nothing reserved, within it the length counts at once', async (t) => {
    const { client, listing, use } = await seller(t);
    const issued = (await client.post(`/assets/${await listing()}/upload-url`, { filename: 'a.zip' })).body;
    const create = (length: number) => fetch(issued.upload_url, { method: 'POST', headers: { 'tus-resumable': '1.0.0', 'upload-length': String(length) } });
    const refused = await create(400 * KB);
    assert.deepEqual([refused.status, (await refused.json()).code], [413, 'STORAGE_QUOTA_EXCEEDED']);
    assert.equal(await use(), 0);
    assert.equal((await create(250 * KB)).status, 201);
    assert.equal(await use(), 250 * KB);
  });

  test('a PUT cut off by its client gives its reservation back', async (t) => {
    const { server, client, listing, use } = await seller(t);
    const id = await listing();
    const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'a.zip' })).body;
    const url = new URL(issued.signed_url);
    const req = request(url, { method: 'PUT', headers: { 'content-type': 'application/zip', 'content-length': String(250 * KB) } });
    req.on('error', () => {});
    req.write(new Uint8Array(100 * KB));
    for (let i = 0; i < 100 && (await use()) !== 250 * KB; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await use(), 250 * KB, 'reserved while it arrives');
    req.destroy();
    for (let i = 0; i < 100 && (await use()) !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await use(), 0);
    assert.equal((await server.marketplace.ports.storage.getUpload(issued.storage_path))?.state, 'issued', 'the URL takes another try');
    assert.equal((await put(issued.signed_url, new Uint8Array(300 * KB))).status, 200);
  });

  test('a terminated resumable upload gives its reservation back; an abandoned one counts until the sweep removes it', async (t) => {
    const { server, client, listing, use } = await seller(t);
    const id = await listing();
    const tus = { 'tus-resumable': '1.0.0' };
    const declared = (await client.post(`/assets/${id}/upload-url`, { filename: 'a.zip', file_size: 250 * KB })).body;
    assert.equal(await use(), 250 * KB);
    const patch = await fetch(declared.upload_url, { method: 'PATCH', headers: { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, body: new Uint8Array(50 * KB) });
    assert.equal(patch.status, 204);
    assert.equal((await client.post(`/assets/${id}/upload-url`, { filename: 'b.zip', file_size: 100 * KB })).status, 413);
    assert.equal((await fetch(declared.upload_url, { method: 'DELETE', headers: tus })).status, 204);
    assert.equal(await use(), 0, 'terminated: given back');

    const abandoned = (await client.post(`/assets/${id}/upload-url`, { filename: 'c.zip', file_size: 250 * KB })).body;
    assert.ok(abandoned.upload_url);
    server.clock.advance(24 * 3600_000);
    assert.equal((await client.post(`/assets/${id}/upload-url`, { filename: 'd.zip', file_size: 100 * KB })).status, 413, 'expired, it still counts');
    assert.deepEqual(await server.marketplace.maintenance.sweepUploads(), { ran: true, removed: 1, leftovers: 0, superseded: 0 });
    assert.equal(await use(), 0);
    assert.equal((await client.post(`/assets/${id}/upload-url`, { filename: 'd.zip', file_size: 300 * KB })).status, 200, 'swept: the room is back');
  });
});

describe('the quota on fs, two `marketkit serve` processes on one SQLite file', () => {
  test('30 concurrent PUTs of 100 KB round both processes under a 300 KB quota: 3 kept and confirmed, 27 refused with nothing kept', { timeout: 120_000 }, async (t) => {
    const dir = tempDir(t);
    const env = await keys();
    const args = ['--data-dir', join(dir, 'data'), '--storage-quota', String(quota)];
    const first = await startCliServer(args, env);
    t.after(() => first.stop('SIGKILL'));
    const second = await startCliServer(args, env);
    t.after(() => second.stop('SIGKILL'));
    assert.equal(first.info.storage.kind, 'sqlite');
    const processes = [first, second];
    const token = first.info.dev_seller.token!;
    const on = (i: number) => as({ api: processes[i % 2]!.info.api }, token);
    const blobsDir = (first.info.storage as { blobs: string }).blobs;
    const stored = () => bytesUnder(join(blobsDir, 'objects'));
    const uploads = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const id = (await on(i).post('/assets', validAsset())).body.id as string;
        return { id, issued: (await on(i).post(`/assets/${id}/upload-url`, { filename: 'pack.zip' })).body };
      }),
    );
    const before = stored();
    const viaProcess = (i: number, url: string) => url.replace(/^https?:\/\/[^/]+/, processes[i % 2]!.info.url);
    const puts = await Promise.all(uploads.map(({ issued }, i) => put(viaProcess(i, issued.signed_url), new Uint8Array(100 * KB))));
    assert.deepEqual(tally(puts.map((answer) => answer.status)), { 200: 3, 413: 27 });
    for (const refused of puts.filter((answer) => answer.status === 413)) assert.equal((await refused.json()).code, 'STORAGE_QUOTA_EXCEEDED');
    assert.equal(stored() - before, 3 * 100 * KB);
    const confirms = await Promise.all(uploads.map(({ id, issued }, i) => on(i + 1).post(`/assets/${id}/confirm-file`, { storage_path: issued.storage_path, file_size: 100 * KB })));
    assert.equal(confirms.filter((answer) => answer.status === 200).length, 3);
    assert.equal(stored() - before, 3 * 100 * KB);
  });
});
