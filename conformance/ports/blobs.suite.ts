import assert from 'node:assert/strict';
import { BlobTooLargeError, type BlobPort, type ByteStream } from '../../core/ports/blobs.js';
import { registerGroups, type SuiteOptions } from './suite.js';
import { readAllBytes } from '../../core/pipeline/body.js';

export type BlobGroup = 'objects' | 'limits' | 'moves' | 'atomicity';

export type BlobSuiteOptions<B extends BlobPort = BlobPort> = SuiteOptions<B, BlobGroup>;

const path = (name = 'pack.zip') => `assets/${crypto.randomUUID()}/files/${crypto.randomUUID()}/${name}`;

/** Deterministic bytes of any size, different for each `seed`. */
export function patternBytes(size: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return bytes;
}

/** The bytes as a stream of chunks of `chunk` bytes, waiting `delayMs` before each. */
async function* chunks(bytes: Uint8Array, chunk = 16 * 1024, delayMs = 0): ByteStream {
  for (let offset = 0; offset < bytes.byteLength; offset += chunk) {
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    // A copy, as a network stream hands out fresh buffers.
    yield bytes.slice(offset, offset + chunk);
  }
}

async function* failingAfter(bytes: Uint8Array, error: Error): ByteStream {
  yield bytes;
  throw error;
}

/** The object at `at` as a reader sees it: null, or its info and every byte. */
async function snapshot(blobs: BlobPort, at: string) {
  const object = await blobs.get(at);
  return object ? { size: object.size, contentType: object.contentType, bytes: await readAllBytes(object.body) } : null;
}

/** The port's MUST rules, run against any BlobPort. */
export function runBlobSuite<B extends BlobPort>(options: BlobSuiteOptions<B>): void {
  registerGroups<B, BlobGroup>('blob port', options, {
    objects: {
      'an object reads back byte for byte with its content type': async (blobs) => {
        const at = path();
        const bytes = patternBytes(200_000);
        assert.deepStrictEqual(await blobs.put(at, chunks(bytes), { contentType: 'application/zip', maxBytes: 1_000_000 }), {
          size: 200_000,
          contentType: 'application/zip',
        });
        assert.deepStrictEqual(await blobs.head(at), { size: 200_000, contentType: 'application/zip' });
        assert.deepStrictEqual(await snapshot(blobs, at), { size: 200_000, contentType: 'application/zip', bytes });
        assert.deepStrictEqual(await blobs.readStart(at, 16), bytes.slice(0, 16));
        assert.deepStrictEqual(await blobs.readStart(at, 300_000), bytes);
        // The optional range read (BlobPort.readRange): inside, across and past the end.
        if (blobs.readRange) {
          assert.deepStrictEqual(await blobs.readRange(at, 150_000, 100), bytes.slice(150_000, 150_100));
          assert.deepStrictEqual(await blobs.readRange(at, 199_990, 100), bytes.slice(199_990));
          assert.deepStrictEqual(await blobs.readRange(at, 250_000, 10), new Uint8Array(0));
          assert.equal(await blobs.readRange(path(), 0, 10), null);
        }
      },
      'an empty object is an object': async (blobs) => {
        const at = path('empty.bin');
        await blobs.put(at, chunks(new Uint8Array(0)), { contentType: 'application/octet-stream', maxBytes: 10 });
        assert.deepStrictEqual(await blobs.head(at), { size: 0, contentType: 'application/octet-stream' });
        assert.deepStrictEqual(await blobs.readStart(at, 16), new Uint8Array(0));
      },
      'a missing object is null everywhere': async (blobs) => {
        const at = path();
        assert.equal(await blobs.head(at), null);
        assert.equal(await blobs.get(at), null);
        assert.equal(await blobs.readStart(at, 16), null);
      },
      'a put replaces the object and its content type': async (blobs) => {
        const at = path('shot.png');
        await blobs.put(at, chunks(patternBytes(5000, 1)), { contentType: 'image/png', maxBytes: 10_000 });
        await blobs.put(at, chunks(patternBytes(3000, 2)), { contentType: 'image/webp', maxBytes: 10_000 });
        assert.deepStrictEqual(await snapshot(blobs, at), { size: 3000, contentType: 'image/webp', bytes: patternBytes(3000, 2) });
      },
      'objects under one prefix are apart': async (blobs) => {
        const folder = `assets/${crypto.randomUUID()}/images/${crypto.randomUUID()}`;
        await blobs.put(`${folder}/a.png`, chunks(patternBytes(10, 1)), { contentType: 'image/png', maxBytes: 100 });
        await blobs.put(`${folder}/b.png`, chunks(patternBytes(20, 2)), { contentType: 'image/png', maxBytes: 100 });
        await blobs.delete(`${folder}/a.png`);
        assert.equal(await blobs.head(`${folder}/a.png`), null);
        assert.deepStrictEqual(await blobs.readStart(`${folder}/b.png`, 100), patternBytes(20, 2));
      },
      'delete removes the object; deleting a missing one is fine': async (blobs) => {
        const at = path();
        await blobs.put(at, chunks(patternBytes(10)), { contentType: 'application/zip', maxBytes: 100 });
        await blobs.delete(at);
        assert.equal(await blobs.head(at), null);
        assert.equal(await blobs.get(at), null);
        await blobs.delete(at);
        await blobs.delete(path());
      },
      'ping resolves': async (blobs) => {
        await blobs.ping();
      },
    },

    limits: {
      'a body over maxBytes is BlobTooLargeError and keeps nothing': async (blobs) => {
        const at = path();
        await assert.rejects(blobs.put(at, chunks(patternBytes(50_000)), { contentType: 'application/zip', maxBytes: 40_000 }), BlobTooLargeError);
        assert.equal(await blobs.head(at), null);
      },
      'a body of exactly maxBytes is accepted': async (blobs) => {
        const at = path();
        await blobs.put(at, chunks(patternBytes(40_000)), { contentType: 'application/zip', maxBytes: 40_000 });
        assert.equal((await blobs.head(at))?.size, 40_000);
      },
      'a refused or failed body leaves the old object as it was': async (blobs) => {
        const at = path();
        const old = patternBytes(1000, 3);
        await blobs.put(at, chunks(old), { contentType: 'application/zip', maxBytes: 10_000 });
        await assert.rejects(blobs.put(at, chunks(patternBytes(20_000)), { contentType: 'text/plain', maxBytes: 10_000 }), BlobTooLargeError);
        const broken = new Error('connection reset');
        await assert.rejects(blobs.put(at, failingAfter(patternBytes(500), broken), { contentType: 'text/plain', maxBytes: 10_000 }), broken);
        assert.deepStrictEqual(await snapshot(blobs, at), { size: 1000, contentType: 'application/zip', bytes: old });
      },
      'a body that fails midway keeps nothing': async (blobs) => {
        const at = path();
        await assert.rejects(blobs.put(at, failingAfter(patternBytes(500), new Error('reset')), { contentType: 'application/zip', maxBytes: 10_000 }));
        assert.equal(await blobs.head(at), null);
        assert.equal(await blobs.get(at), null);
      },
    },

    moves: {
      'move puts the object at the new path with its type, and nothing stays at the old one': async (blobs) => {
        const from = path('staged.zip');
        const to = path();
        const bytes = patternBytes(70_000, 3);
        await blobs.put(from, chunks(bytes), { contentType: 'application/zip', maxBytes: 100_000 });
        assert.deepStrictEqual(await blobs.move(from, to), { size: 70_000, contentType: 'application/zip' });
        assert.deepStrictEqual(await snapshot(blobs, to), { size: 70_000, contentType: 'application/zip', bytes });
        assert.equal(await blobs.head(from), null);
        assert.equal(await blobs.move(from, to), null, 'a second move finds nothing to move');
        assert.deepStrictEqual(await blobs.head(to), { size: 70_000, contentType: 'application/zip' });
      },
      'a move replaces what was at the new path': async (blobs) => {
        const from = path('new.png');
        const to = path('old.png');
        await blobs.put(to, chunks(patternBytes(100, 1)), { contentType: 'image/png', maxBytes: 1000 });
        await blobs.put(from, chunks(patternBytes(300, 2)), { contentType: 'image/webp', maxBytes: 1000 });
        await blobs.move(from, to);
        assert.deepStrictEqual(await snapshot(blobs, to), { size: 300, contentType: 'image/webp', bytes: patternBytes(300, 2) });
      },
      'bytes written to the old path after a move, by any means the store offers, never reach the moved object': async (blobs) => {
        // The rule behind "confirmed bytes never change": uploads land at a staging path, confirm
        // moves them, and a replayed upload URL (on S3, a presigned PUT nobody can revoke) names
        // only the staging path.
        const from = path('staged.zip');
        const to = path();
        const original = patternBytes(5000, 4);
        const direct = blobs.issueDirectUpload
          ? await blobs.issueDirectUpload(from, { maxBytes: 10_000, expiresAt: new Date(Date.now() + 600_000) })
          : null;
        const write = async (bytes: Uint8Array) => {
          if (!direct) return void (await blobs.put(from, chunks(bytes), { contentType: 'application/zip', maxBytes: 10_000 }));
          const response = await fetch(direct.url, { method: 'PUT', body: bytes as Uint8Array<ArrayBuffer>, headers: { 'content-type': 'application/zip', ...direct.headers } });
          assert.ok(response.ok, `the direct upload URL answered ${response.status}`);
          await response.arrayBuffer();
        };
        await write(original);
        await blobs.move(from, to);
        await write(patternBytes(5000, 5));
        assert.deepStrictEqual(await snapshot(blobs, to), { size: 5000, contentType: 'application/zip', bytes: original });
        await blobs.delete(from);
      },
    },
    atomicity: {
      'a reader during a slow put sees the old object or the whole new one': async (blobs) => {
        const at = path();
        const old = patternBytes(64 * 1024, 4);
        const next = patternBytes(256 * 1024, 5);
        await blobs.put(at, chunks(old), { contentType: 'application/zip', maxBytes: 1_000_000 });
        let done = false;
        const writing = blobs.put(at, chunks(next, 16 * 1024, 5), { contentType: 'application/zip', maxBytes: 1_000_000 }).finally(() => {
          done = true;
        });
        const seen = new Set<string>();
        while (!done) {
          const object = await snapshot(blobs, at);
          assert.ok(object, 'the object never disappears during a replacing put');
          const whole = object.size === old.byteLength ? old : next;
          assert.equal(object.bytes.byteLength, object.size, 'size and bytes agree');
          assert.deepStrictEqual(object.bytes, whole, 'a reader sees one whole object');
          seen.add(object.size === old.byteLength ? 'old' : 'new');
          // Let the writer's timers run: an in-memory store answers without ever yielding.
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        await writing;
        assert.ok(seen.has('old'), 'the old object stays readable while the new one is written');
        assert.deepStrictEqual((await snapshot(blobs, at))?.bytes, next);
      },
    },
  });
}
