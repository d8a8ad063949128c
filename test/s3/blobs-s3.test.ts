import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { s3Blobs, type S3Blobs } from '../../adapters/s3/index.js';
import { runBlobSuite, patternBytes } from '../../conformance/ports/index.js';
import { s3rverCredentials, startS3Server, type S3Server } from '../fixtures/s3.js';

let server: S3Server;
before(async () => {
  server = await startS3Server();
});
after(() => server.stop());

/** Each test gets its own key prefix in the one bucket: a fresh, empty store. */
const create = (extra: Partial<Parameters<typeof s3Blobs>[0]> = {}): S3Blobs =>
  s3Blobs({ endpoint: server.endpoint, bucket: server.bucket, pathStyle: true, prefix: `suite-${crypto.randomUUID()}/`, ...s3rverCredentials, env: {}, ...extra });

/**
 * s3rver's filesystem store streams a PUT into the object's final file, so a reader during a put
 * can see part of it (measured: 195,898 of 262,144 bytes). S3 itself replaces an object atomically,
 * and the adapter's put is one PUT or one multipart completion, so this group tests s3rver, not
 * the adapter: it is skipped against s3rver, and says so.
 */
const atomicitySkip = "s3rver writes objects in place, so a reader can see a partial object; S3 replaces objects atomically and the adapter's put is one PUT or one multipart completion (docs/adapters.md)";
runBlobSuite({ test, create: () => create(), prefix: 's3: ', skip: { atomicity: atomicitySkip } });
test('s3: blob port atomicity: a reader during a slow put sees the old object or the whole new one', (t) => {
  t.skip(atomicitySkip);
});

async function* inChunks(bytes: Uint8Array, size: number) {
  for (let offset = 0; offset < bytes.byteLength; offset += size) yield bytes.slice(offset, offset + size);
}

test('a put larger than one part goes up as a multipart upload and reads back whole', async () => {
  const blobs = create({ partBytes: 5 * 1024 * 1024 });
  const bytes = patternBytes(11 * 1024 * 1024 + 123, 9);
  const at = `assets/${crypto.randomUUID()}/files/${crypto.randomUUID()}/big.zip`;
  assert.deepStrictEqual(await blobs.put(at, inChunks(bytes, 256 * 1024), { contentType: 'application/zip', maxBytes: 20 * 1024 * 1024 }), {
    size: bytes.byteLength,
    contentType: 'application/zip',
  });
  assert.deepStrictEqual(await blobs.head(at), { size: bytes.byteLength, contentType: 'application/zip' });
  const object = await blobs.get(at);
  const parts: Uint8Array[] = [];
  for await (const part of object!.body) parts.push(part);
  assert.deepStrictEqual(Buffer.concat(parts), Buffer.from(bytes));
  assert.deepStrictEqual(server.keys(blobs.settings.prefix), [blobs.keyOf(at)]);
});

test('a multipart put over maxBytes is aborted and leaves no object', async (t) => {
  // Every request the adapter makes goes to the real s3rver; this only watches them go by.
  const seen: { method: string; url: URL; status: number }[] = [];
  const watching: typeof fetch = async (input, init) => {
    const request = new Request(input as Request, init);
    const response = await fetch(request);
    seen.push({ method: request.method, url: new URL(request.url), status: response.status });
    return response;
  };
  const blobs = create({ partBytes: 5 * 1024 * 1024, fetch: watching });
  const at = `assets/${crypto.randomUUID()}/files/${crypto.randomUUID()}/big.zip`;
  await assert.rejects(
    blobs.put(at, inChunks(patternBytes(12 * 1024 * 1024), 256 * 1024), { contentType: 'application/zip', maxBytes: 11 * 1024 * 1024 }),
    { name: 'BlobTooLargeError' },
  );
  assert.equal(await blobs.head(at), null);
  assert.deepStrictEqual(server.keys(blobs.settings.prefix), []);
  // The outcome that matters on S3 is that the parts are discarded: the adapter must send
  // AbortMultipartUpload for the upload it started.
  const uploadIds = new Set(seen.filter((r) => r.method === 'PUT' && r.url.searchParams.has('partNumber')).map((r) => r.url.searchParams.get('uploadId')));
  assert.equal(uploadIds.size, 1, 'parts were sent for one multipart upload');
  const abort = seen.find((r) => r.method === 'DELETE' && uploadIds.has(r.url.searchParams.get('uploadId')));
  assert.ok(abort, 'the adapter sent AbortMultipartUpload (DELETE ?uploadId) for that upload');
  if (abort.status === 405) {
    // s3rver (3.7 and the 5.0 fork) does not implement AbortMultipartUpload, nor ListParts to look:
    // that the parts are gone cannot be shown here. Said loudly rather than passed in silence.
    const note = 's3rver answered 405 to AbortMultipartUpload: the abort was sent, but whether the parts were discarded cannot be shown against s3rver (on S3, also set a lifecycle rule AbortIncompleteMultipartUpload: docs/adapters.md)';
    t.diagnostic(note);
    console.warn(`NOTE: ${note}`);
  } else {
    assert.ok(abort.status === 204 || abort.status === 200, `AbortMultipartUpload answered ${abort.status}`);
  }
});

/** The store as it is, but answering 503 SlowDown to the first `count` requests (as S3 does under load). */
function slowDownFirst(count: number) {
  let left = count;
  const seen: string[] = [];
  const fetchWithFaults: typeof fetch = async (input, init) => {
    const request = new Request(input as Request, init);
    seen.push(request.method);
    if (left-- > 0) return new Response('<Error><Code>SlowDown</Code></Error>', { status: 503 });
    return fetch(request);
  };
  return { fetch: fetchWithFaults, seen };
}

test('a 503 SlowDown is retried (twice, for requests that repeat safely), then reported with its code', async () => {
  const at = `assets/${crypto.randomUUID()}/files/${crypto.randomUUID()}/pack.zip`;
  const prefix = `retry-${crypto.randomUUID()}/`;
  await create({ prefix }).put(at, inChunks(patternBytes(100), 100), { contentType: 'application/zip', maxBytes: 1000 });

  const twice = slowDownFirst(2);
  assert.deepStrictEqual(await create({ prefix, fetch: twice.fetch }).head(at), { size: 100, contentType: 'application/zip' });
  assert.deepStrictEqual(twice.seen, ['HEAD', 'HEAD', 'HEAD']);

  const always = slowDownFirst(Infinity);
  await assert.rejects(create({ prefix, fetch: always.fetch }).head(at), { name: 'S3RequestError', status: 503, message: /HEAD .*pack\.zip answered 503/ });
  assert.equal(always.seen.length, 3);
});
