import type { BlobInfo, ByteStream } from '../../core/ports/blobs.js';
import { AppendRefusedError, type ResumableBlobs, type StoredProgress } from '../../core/ports/resumable-blobs.js';
import type { UploadPart } from '../../core/ports/upload-state.js';
import type { S3Client } from './s3-client.js';
import { removeS3Leftovers } from './s3-leftovers.js';

const MiB = 1024 * 1024;
/** S3's limits: parts of at least 5 MiB (the last aside), at most 10,000 of them. */
export const s3MinPartBytes = 5 * MiB;
export const s3MaxParts = 10_000;
/** The most one PUT (or one CopyObject) takes on S3: larger files go through the resumable upload_url. */
export const s3MaxSinglePutBytes = 5 * 1024 * MiB;

/**
 * The part size of a resumable upload of `length` bytes: at least `minBytes` (and S3's 5 MiB), and
 * large enough that the upload fits in 10,000 parts, rounded up to whole MiB. Every part but the
 * last is at least this size, so the count stays within S3's limit.
 */
export function resumablePartBytes(length: number | null | undefined, minBytes = s3MinPartBytes): number {
  const needed = Math.ceil((length ?? 0) / s3MaxParts / MiB) * MiB;
  return Math.max(minBytes, s3MinPartBytes, needed);
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const unescapeXml = (text: string) => text.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const storedBytes = (parts: readonly UploadPart[]) => parts.reduce((sum, part) => sum + part.size, 0);

/** What the functions below share: the client, the key of a storage path, and the spare part buffers. */
interface S3Multipart {
  client: S3Client;
  keyOf: (path: string) => string;
  minPartBytes: number;
  /**
   * Part buffers that appends gave back, taken again by the next ones: a PATCH of a few MiB would
   * otherwise leave a part-sized buffer for the collector each time (the RSS then grows with the rate).
   */
  spare: Uint8Array[];
}

/**
 * The resumable capability of the S3 blob store (docs/uploads.md, "What each store does"): the
 * bytes of an upload go into one S3 multipart upload under the staging key, in parts of
 * `resumablePartBytes(length)`; bytes short of a part wait in a tail object beside it, named by the
 * number of parts before it (`<key>.tail-<n>`), so a tail written by an append the core never
 * recorded (a crash between the two) never overwrites the one the recorded state points at. The
 * part list travels in StoredProgress into the upload state: any instance continues from the
 * record, and the store is never asked for ListParts. At most one part is held in memory.
 */
export function s3Resumable(client: S3Client, keyOf: (path: string) => string, minPartBytes: number, prefix: string): ResumableBlobs {
  const state: S3Multipart = { client, keyOf, minPartBytes, spare: [] };
  return {
    append: (key, from, body) => appendToUpload(state, key, from, body),
    complete: (key, progress, contentType) => completeUpload(state, key, progress, contentType),
    abort: (key, progress) => abortUpload(state, key, progress),
    removeLeftovers: (untouchedForMs) => removeS3Leftovers(client, prefix, untouchedForMs),
  };
}

const tailKey = (s: S3Multipart, key: string, partCount: number) => `${s.keyOf(key)}.tail-${partCount}`;

function takeBuffer(s: S3Multipart, size: number): Uint8Array {
  const at = s.spare.findIndex((buffer) => buffer.byteLength === size);
  return at >= 0 ? s.spare.splice(at, 1)[0]! : new Uint8Array(size);
}

function giveBack(s: S3Multipart, buffer: Uint8Array): void {
  if (s.spare.length < 2) s.spare.push(buffer);
}

async function startMultipart({ client, keyOf }: S3Multipart, key: string): Promise<string> {
  const started = await client.send('POST', keyOf(key), { query: { uploads: '' }, headers: { 'content-type': 'application/octet-stream' } });
  if (!started.ok) await client.fail('POST ?uploads', keyOf(key), started);
  const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(await started.text())?.[1];
  if (!uploadId) throw new Error(`marketkit s3Blobs: the store started a multipart upload of ${key} without an UploadId`);
  return unescapeXml(uploadId);
}

async function uploadPart({ client, keyOf }: S3Multipart, key: string, uploadId: string, number: number, bytes: Uint8Array): Promise<UploadPart> {
  const response = await client.send('PUT', keyOf(key), { query: { partNumber: String(number), uploadId }, body: bytes });
  if (!response.ok) await client.fail('PUT part', keyOf(key), response);
  await response.arrayBuffer();
  return { number, etag: response.headers.get('etag') ?? '', size: bytes.byteLength };
}

/** Reads the first `size` bytes of the tail after `partCount` parts into `into` (a tail object may hold more: an append never recorded). */
async function readTail(s: S3Multipart, key: string, partCount: number, size: number, into: Uint8Array): Promise<void> {
  if (size === 0) return;
  const tail = tailKey(s, key, partCount);
  const response = await s.client.send('GET', tail, { headers: { range: `bytes=0-${size - 1}` }, stream: true });
  if (!response.ok) await s.client.fail('GET', tail, response);
  let read = 0;
  const reader = response.body!.getReader();
  try {
    while (read < size) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = Math.min(value.byteLength, size - read);
      into.set(value.subarray(0, take), read);
      read += take;
    }
  } finally {
    // Cancelled to free the connection, whatever the cancel says; what was read is checked below.
    await reader.cancel().catch(() => {});
  }
  if (read !== size) throw new Error(`marketkit s3Blobs: the tail of ${key} holds ${read} bytes, not ${size}`);
}

async function writeTail(s: S3Multipart, key: string, partCount: number, bytes: Uint8Array): Promise<void> {
  const response = await s.client.send('PUT', tailKey(s, key, partCount), { body: bytes, headers: { 'content-type': 'application/octet-stream' } });
  if (!response.ok) await s.client.fail('PUT', tailKey(s, key, partCount), response);
  await response.arrayBuffer();
}

/** The tail objects of `key` but the one named `keep` (a listing: appends and crashes leave older ones). */
async function removeTails({ client, keyOf }: S3Multipart, key: string, keep: string | null): Promise<void> {
  const prefix = `${keyOf(key)}.tail-`;
  const response = await client.send('GET', '', { query: { 'list-type': '2', prefix } });
  if (!response.ok) await client.fail('GET ?list-type=2', prefix, response);
  const found = [...(await response.text()).matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => unescapeXml(m[1]!));
  for (const tail of found) {
    if (tail === keep || !tail.startsWith(prefix)) continue;
    const removed = await client.send('DELETE', tail);
    if (!removed.ok && removed.status !== 404) await client.fail('DELETE', tail, removed);
    await removed.arrayBuffer();
  }
}

async function appendToUpload(s: S3Multipart, key: string, from: StoredProgress, body: ByteStream): Promise<StoredProgress & { interrupted?: unknown }> {
  const partBytes = resumablePartBytes(from.length, s.minPartBytes);
  const parts = [...from.parts];
  let uploadId = from.storeUploadId;
  // The one buffer of this append: the recorded tail, then the body's bytes, sent as a part each time it fills.
  let heldBytes = from.offset - storedBytes(from.parts);
  const remaining = from.length === null ? partBytes : from.length - storedBytes(from.parts);
  const buffer = takeBuffer(s, Math.max(heldBytes, Math.min(partBytes, remaining)));
  await readTail(s, key, parts.length, heldBytes, buffer);
  // Tails left by earlier appends (or by one never recorded) go; the recorded one stays until replaced.
  await removeTails(s, key, tailKey(s, key, parts.length));
  const flush = async () => {
    uploadId ??= await startMultipart(s, key);
    parts.push(await uploadPart(s, key, uploadId, parts.length + 1, buffer.subarray(0, heldBytes)));
    heldBytes = 0;
  };
  // A tail of a part or more (recorded under a larger part size) goes up first.
  if (heldBytes >= partBytes) await flush();
  /** What is durable now: the parts, and what is held written as the tail after them. */
  const settle = async (): Promise<StoredProgress> => {
    const offset = storedBytes(parts) + heldBytes;
    if (offset === from.length && heldBytes > 0 && uploadId !== null) await flush();
    else if (heldBytes > 0 && (parts.length !== from.parts.length || offset !== from.offset)) await writeTail(s, key, parts.length, buffer.subarray(0, heldBytes));
    return { offset, storeUploadId: uploadId, parts, length: from.length };
  };
  const chunks = body[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Uint8Array>;
    try {
      next = await chunks.next();
    } catch (error) {
      // A refused append keeps nothing: parts it uploaded are not in the list (complete never
      // names them; abort removes them), and the recorded tail was not touched.
      if (error instanceof AppendRefusedError) throw error;
      return { ...(await settle()), interrupted: error };
    }
    if (next.done) break;
    for (let at = 0; at < next.value.byteLength; ) {
      // Past the upload's length the core's body refuses the append before this could overflow.
      if (heldBytes === buffer.byteLength) throw new AppendRefusedError('too-large');
      const take = Math.min(next.value.byteLength - at, buffer.byteLength - heldBytes);
      buffer.set(next.value.subarray(at, at + take), heldBytes);
      heldBytes += take;
      at += take;
      if (heldBytes >= partBytes) await flush();
    }
  }
  const settled = await settle();
  // Every request that read the buffer has been answered: the next append may fill it. (Not on a
  // failure, where a request may still be writing it.)
  giveBack(s, buffer);
  return settled;
}

async function completeUpload(s: S3Multipart, key: string, progress: StoredProgress, contentType: string): Promise<BlobInfo> {
  const { client } = s;
  const object = s.keyOf(key);
  if (progress.storeUploadId === null) {
    // Smaller than one part: the tail is the whole upload, put as the object.
    const bytes = new Uint8Array(progress.offset);
    await readTail(s, key, 0, progress.offset, bytes);
    const response = await client.send('PUT', object, { body: bytes, headers: { 'content-type': contentType } });
    if (!response.ok) await client.fail('PUT', object, response);
    await response.arrayBuffer();
  } else {
    if (storedBytes(progress.parts) !== progress.offset) throw new Error(`marketkit s3Blobs: the parts of ${key} hold ${storedBytes(progress.parts)} bytes, not ${progress.offset}`);
    const list = progress.parts.map((part) => `<Part><PartNumber>${part.number}</PartNumber><ETag>${escapeXml(part.etag)}</ETag></Part>`).join('');
    const response = await client.send('POST', object, { query: { uploadId: progress.storeUploadId }, body: `<CompleteMultipartUpload>${list}</CompleteMultipartUpload>`, headers: { 'content-type': 'application/xml' }, slow: true });
    // S3 may answer 200 and still fail the completion, in the body.
    const text = await response.text();
    if (!response.ok || /<Error>/.test(text)) {
      throw new Error(`marketkit s3Blobs: completing the multipart upload of ${key} failed (${response.status}): ${/<Code>([^<]+)/.exec(text)?.[1] ?? 'no code'}`);
    }
  }
  await removeTails(s, key, null);
  return { size: progress.offset, contentType };
}

async function abortUpload(s: S3Multipart, key: string, progress: StoredProgress | null | undefined): Promise<void> {
  if (progress?.storeUploadId) {
    const response = await s.client.send('DELETE', s.keyOf(key), { query: { uploadId: progress.storeUploadId } });
    // Read only to free the connection; the status below says how the abort went.
    await response.arrayBuffer().catch(() => {});
    // 404: already gone. 405/501: a store without AbortMultipartUpload (s3rver); its parts stay
    // until the bucket's lifecycle rule for incomplete multipart uploads (docs/adapters.md).
    if (!response.ok && ![404, 405, 501].includes(response.status)) await s.client.fail('DELETE ?uploadId', s.keyOf(key), response);
  }
  await removeTails(s, key, null);
}
