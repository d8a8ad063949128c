/**
 * The wave-4 upload security test's findings, replayed as written (docs/security.md, "Findings of
 * the wave-4 upload security test"), on memory, the filesystem and S3 (s3rver), on one instance and
 * on two sharing their storage, upload states and blob store:
 *
 * - two PATCHes on one upload: the second, sent while the first's body is still arriving, is
 *   refused at once (423 UPLOAD_LOCKED) before it writes a byte, at the first offset and at a later
 *   one; and when both are sent at once, one writes and the stored bytes are the recorded SHA-256's
 *   (read back from the store, never taken from the record alone);
 * - a PATCH racing a DELETE of the upload or of its listing: never a 5xx, and nothing is left in
 *   the store once both are answered.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { memoryBlobs, memoryStorage, memoryUploadStates } from '../../adapters/memory/index.js';
import { s3Blobs } from '../../adapters/s3/index.js';
import type { BlobPort } from '../../core/ports/blobs.js';
import type { ClockPort } from '../../core/ports/clock.js';
import { filesUnder } from '../fixtures/files.js';
import { s3rverCredentials, startS3Server, type S3Server } from '../fixtures/s3.js';
import { as, startServer, validAsset, type TestServer } from '../fixtures/server.js';

const MiB = 2 ** 20;
const tus = { 'tus-resumable': '1.0.0' };
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let s3: S3Server;
before(async () => {
  s3 = await startS3Server();
});
after(() => s3.stop());

interface Store {
  name: string;
  make(t: { after(fn: () => unknown): void }): { blobs: BlobPort; clock?: ClockPort; leftovers(): string[] };
}

const stores: Store[] = [
  {
    name: 'memory',
    make: () => {
      const blobs = memoryBlobs();
      return { blobs, leftovers: () => (blobs.size > 0 ? [`${blobs.size} objects`] : []) };
    },
  },
  {
    name: 'fs',
    make: (t) => {
      const root = mkdtempSync(join(tmpdir(), 'marketkit-races-'));
      t.after(() => rmSync(root, { recursive: true, force: true }));
      // Every file the store keeps: objects, their metadata, partial files, temporary files.
      return { blobs: fsBlobs({ root }), leftovers: () => filesUnder(root) };
    },
  },
  {
    name: 's3',
    make: () => {
      // s3rver judges presigned URLs by the real clock.
      const clock: ClockPort = { now: () => Date.now() };
      const prefix = `races-${crypto.randomUUID()}`;
      return {
        clock,
        blobs: s3Blobs({ endpoint: s3.endpoint, bucket: s3.bucket, pathStyle: true, prefix, ...s3rverCredentials, clock, env: {} }),
        leftovers: () => s3.keys(prefix),
      };
    },
  },
];

/** One instance, or two sharing their storage, upload states and blob store (as N `marketkit serve` on one database and bucket). */
async function instancesOn(store: Store, count: 1 | 2, t: { after(fn: () => unknown): void }) {
  const made = store.make(t);
  const shared = { storage: memoryStorage(), uploadStates: memoryUploadStates(), blobs: made.blobs, signingSecret: 'upload-races: one secret for every instance', ...(made.clock ? { clock: made.clock } : {}) };
  const servers: TestServer[] = [];
  for (let i = 0; i < count; i++) servers.push(await startServer(shared));
  t.after(() => Promise.all(servers.map((server) => server.close())));
  const client = as(servers[0]!, servers[0]!.seller.token);
  /** upload_url of a new listing's file of `size` bytes, on instance `at` (its URL points at instance 0). */
  const onInstance = (url: string, at: number) => url.replace(servers[0]!.url, servers[at % count]!.url);
  return { servers, client, onInstance, leftovers: made.leftovers, blobs: made.blobs };
}

async function newUpload(client: ReturnType<typeof as>, size: number) {
  const id = (await client.post('/assets', validAsset())).body.id as string;
  const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.bin', file_size: size })).body;
  assert.ok(issued.upload_url, JSON.stringify(issued));
  return { id, url: issued.upload_url as string, storagePath: issued.storage_path as string };
}

const patch = (url: string, offset: number, body: Uint8Array | ReadableStream<Uint8Array>) =>
  fetch(url, { method: 'PATCH', headers: { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) }, body: body as BodyInit, duplex: 'half' } as RequestInit);

/**
 * Sends the first PATCH with a body held after its first 64 KiB, and resolves once it holds the
 * upload: an empty PATCH (which appends nothing when it gets in) is then refused with 423. However
 * slow the machine, the second PATCH is then sent while the first's body is still arriving.
 *
 * The empty probe holds the upload for the moment it runs, so on a loaded machine the first PATCH
 * can arrive in that moment and be refused (423) itself: it is then sent again, a fresh body.
 */
async function firstHolding(firstUrl: string, probeUrl: string, offset: number, bytes: Uint8Array) {
  for (let attempt = 0; attempt < 20; attempt++) {
    const first = heldBody(bytes, 64 * 1024);
    let settled: Response | undefined;
    const answer = patch(firstUrl, offset, first.stream).then((response) => (settled = response));
    for (let tries = 0; tries < 500 && !settled; tries++) {
      const probe = await patch(probeUrl, offset, new Uint8Array(0));
      await probe.arrayBuffer();
      if (probe.status === 423 && !settled) return { release: first.release, answer };
      if (probe.status !== 423) assert.equal(probe.status, 204, 'an empty PATCH appends nothing');
      await pause(10);
    }
    const refused = settled ?? (first.release(), await answer);
    assert.equal(refused.status, 423, `the first PATCH never held the upload (${refused.status} ${await refused.clone().text()})`);
    await refused.arrayBuffer();
  }
  assert.fail('the first PATCH was refused twenty times, each while an empty probe held the upload');
}

/** A request body whose first `held` bytes go at once and the rest only when `release()` is called. */
function heldBody(bytes: Uint8Array, held: number) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(bytes.subarray(0, held));
      await released;
      for (let at = held; at < bytes.byteLength; at += 256 * 1024) controller.enqueue(bytes.subarray(at, Math.min(bytes.byteLength, at + 256 * 1024)));
      controller.close();
    },
  });
  return { stream, release };
}

async function storedBytes(blobs: BlobPort, path: string): Promise<Uint8Array | null> {
  const object = await blobs.get(path);
  if (!object) return null;
  const parts: Uint8Array[] = [];
  for await (const part of object.body) parts.push(part);
  return new Uint8Array(Buffer.concat(parts));
}

/** Confirms the upload without a checksum of its own, and returns the SHA-256 the server recorded with the stored bytes read back. */
async function recordedAndStored(client: ReturnType<typeof as>, blobs: BlobPort, id: string, storagePath: string, size: number) {
  const confirmed = await client.post(`/assets/${id}/confirm-file`, { storage_path: storagePath, file_size: size });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  const recorded: string = confirmed.body.file.sha256;
  const stored = await storedBytes(blobs, storagePath);
  assert.ok(stored, 'the confirmed file is in the store');
  return { recorded, stored };
}

for (const store of stores) {
  for (const count of [1, 2] as const) {
    const where = `${store.name}, ${count === 1 ? 'one instance' : 'two instances'}`;
    describe(`one writer at a time on an upload (${where})`, () => {
      for (const [name, at] of [['at the first offset', 0], ['at a later offset', 3 * MiB]] as const) {
        test(`a second PATCH ${name}, sent while the first's body is still arriving, is refused at once (423) and writes nothing`, async (t) => {
          const { client, onInstance, blobs } = await instancesOn(store, count, t);
          const size = 6 * MiB + 123;
          const { id, url, storagePath } = await newUpload(client, size);
          const winner = randomBytes(size);
          const loser = randomBytes(size);
          if (at > 0) assert.equal((await patch(url, 0, winner.subarray(0, at))).status, 204);
          const first = await firstHolding(onInstance(url, 0), onInstance(url, 1), at, winner.subarray(at));
          const second = await patch(onInstance(url, 1), at, loser.subarray(at));
          assert.equal(second.status, 423, `the second PATCH is refused while the first holds the upload (${second.status} ${await second.clone().text()})`);
          assert.equal((await second.json()).code, 'UPLOAD_LOCKED');
          first.release();
          const done = await first.answer;
          assert.equal(done.status, 204, await done.text());
          assert.equal(done.headers.get('upload-offset'), String(size));
          const { recorded, stored } = await recordedAndStored(client, blobs, id, storagePath, size);
          assert.equal(sha256(stored), recorded, 'the recorded SHA-256 is the stored bytes\'');
          assert.equal(recorded, sha256(winner), 'and the stored bytes are the first PATCH\'s');
        });
      }

      test('two PATCHes sent at once, ten rounds: one writes, and the stored bytes are always the recorded SHA-256\'s', async (t) => {
        const { client, onInstance, blobs } = await instancesOn(store, count, t);
        const size = store.name === 's3' ? 6 * MiB : 2 * MiB;
        for (let round = 0; round < 10; round++) {
          const { id, url, storagePath } = await newUpload(client, size);
          const bodies = [randomBytes(size), randomBytes(size)];
          const answers = await Promise.all(bodies.map((body, i) => patch(onInstance(url, i), 0, body)));
          const statuses = answers.map((answer) => answer.status).sort();
          await Promise.all(answers.map((answer) => answer.arrayBuffer()));
          // The other is refused at once (423) or, when the first was already done, told the offset moved (409).
          assert.ok(statuses[0] === 204 && [409, 423].includes(statuses[1]!), `round ${round}: one PATCH writes (${statuses.join(', ')})`);
          const { recorded, stored } = await recordedAndStored(client, blobs, id, storagePath, size);
          assert.equal(sha256(stored), recorded, `round ${round}: the recorded SHA-256 is the stored bytes'`);
          const written = answers.findIndex((answer) => answer.status === 204);
          assert.equal(recorded, sha256(bodies[written]!), `round ${round}: the stored bytes are the writer's`);
        }
      });
    });
  }

  describe(`a PATCH racing a DELETE leaves nothing behind (${store.name})`, () => {
    for (const target of ['the upload (tus termination)', 'its listing'] as const) {
      test(`PATCH against a DELETE of ${target}, in a loop: no 5xx, and the store is empty afterwards`, async (t) => {
        const { client, leftovers } = await instancesOn(store, 1, t);
        const size = store.name === 's3' ? 6 * MiB : 1 * MiB;
        for (let round = 0; round < 12; round++) {
          const { id, url } = await newUpload(client, size);
          const sent = patch(url, 0, randomBytes(size));
          // The DELETE lands at a different moment of the PATCH each round.
          await pause(round * 3);
          const deleted = target === 'its listing' ? await client.delete(`/assets/${id}`) : await fetch(url, { method: 'DELETE', headers: tus });
          const patched = await sent;
          const answers = [patched.status, deleted.status];
          await patched.arrayBuffer();
          if (deleted instanceof Response) await deleted.arrayBuffer();
          assert.ok(answers.every((status) => status < 500), `round ${round}: no 5xx (PATCH ${patched.status}, DELETE ${deleted.status})`);
          // A DELETE refused while the PATCH held the upload is sent again, as a client would.
          if (deleted.status === 423 || (target === 'its listing' && deleted.status !== 200)) {
            const again = target === 'its listing' ? await client.delete(`/assets/${id}`) : await fetch(url, { method: 'DELETE', headers: tus });
            assert.ok([200, 204].includes(again.status), `round ${round}: the DELETE sent again succeeds (${again.status})`);
          }
          if (target === 'the upload (tus termination)') assert.equal((await client.delete(`/assets/${id}`)).status, 200);
        }
        assert.deepEqual(leftovers(), [], 'nothing of any round is left in the store');
      });
    }
  });
}

function randomBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let at = 0; at < size; at += 65536) crypto.getRandomValues(bytes.subarray(at, Math.min(size, at + 65536)));
  return bytes;
}

test('an append whose hold could not be renewed for two thirds of a lease stops writing: what arrived before is kept, the rest is not', async (t) => {
  // The renewals run on a timer; this test moves the clock past the deadline instead, as a storage
  // that stopped answering for 20 s of a 30 s lease would leave it.
  const server = await startServer({ blobs: memoryBlobs() });
  t.after(() => server.close());
  const client = as(server, server.seller.token);
  const size = 2 * MiB;
  const { url } = await newUpload(client, size);
  const bytes = randomBytes(size);
  const first = await firstHolding(url, url, 0, bytes);
  server.clock.advance(21_000);
  first.release();
  const done = await first.answer;
  assert.equal(done.status, 204, await done.text());
  const reached = Number(done.headers.get('upload-offset'));
  // Whatever the store had taken before the deadline (none, when it had not read the first chunk yet) and nothing after.
  assert.ok(reached < size, `the append stopped once its hold was lost (${reached} of ${size})`);
  const head = await fetch(url, { method: 'HEAD', headers: tus });
  assert.equal(head.headers.get('upload-offset'), String(reached), 'HEAD agrees');
  const resumed = await patch(url, reached, bytes.subarray(reached));
  assert.equal(resumed.status, 204, 'the upload goes on from there');
  assert.equal(resumed.headers.get('upload-offset'), String(size));
});
