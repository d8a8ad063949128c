/**
 * The object operations of the S3 blob store (s3-blobs.ts), each a function over the bucket: a
 * streamed put (one request, or a multipart upload once it outgrows a part), ranged and whole
 * reads, and the move (CopyObject, or a copy in parts past 5 GiB).
 */
import { BlobTooLargeError, type BlobInfo, type BlobPort, type ByteStream } from '../../core/ports/blobs.js';
import { concatBytes } from '../../core/pipeline/body.js';
import type { S3Settings } from './options.js';
import { encodeKey, S3RequestError, type S3Client } from './s3-client.js';
import { copyInParts, s3MaxCopyBytes } from './s3-copy.js';

/** What the operations share: the client, the settings, and the key of a storage path. */
export interface S3Bucket {
  client: S3Client;
  settings: S3Settings;
  keyOf(path: string): string;
}

const defaultContentType = 'application/octet-stream';

/** A fetch body as the port's byte stream, read chunk by chunk. */
export async function* streamOf(body: ReadableStream<Uint8Array> | null): ByteStream {
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // A reader that stops early (or an error) must not leave the connection open.
    await reader.cancel().catch(() => {});
  }
}

export const infoOf = (response: Response): BlobInfo => ({
  size: Number(response.headers.get('content-length') ?? 0),
  contentType: response.headers.get('content-type') || defaultContentType,
});

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A multipart upload: each part sent as it fills, completed in one request, so the object
 * appears whole or not at all; aborted (its parts discarded by the store) on any failure.
 */
async function multipart(client: S3Client, key: string, contentType: string) {
  const started = await client.send('POST', key, { query: { uploads: '' }, headers: { 'content-type': contentType } });
  if (!started.ok) await client.fail('POST ?uploads', key, started);
  const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(await started.text())?.[1];
  if (!uploadId) throw new Error(`marketkit s3Blobs: the store started a multipart upload of ${key} without an UploadId`);
  const etags: string[] = [];
  return {
    async part(bytes: Uint8Array) {
      const partNumber = String(etags.length + 1);
      const response = await client.send('PUT', key, { query: { partNumber, uploadId }, body: bytes });
      if (!response.ok) await client.fail('PUT part', key, response);
      await response.arrayBuffer();
      etags.push(response.headers.get('etag') ?? '');
    },
    async complete() {
      const body = `<CompleteMultipartUpload>${etags
        .map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`)
        .join('')}</CompleteMultipartUpload>`;
      const response = await client.send('POST', key, { query: { uploadId }, body, headers: { 'content-type': 'application/xml' }, slow: true });
      // S3 may answer 200 and still fail the completion, in the body.
      const text = await response.text();
      if (!response.ok || /<Error>/.test(text)) {
        throw new Error(`marketkit s3Blobs: completing the multipart upload of ${key} failed (${response.status}): ${/<Code>([^<]+)/.exec(text)?.[1] ?? 'no code'}`);
      }
    },
    async abort() {
      const response = await client.send('DELETE', key, { query: { uploadId } });
      // Read only to free the connection; the put's own error is the one thrown.
      await response.arrayBuffer().catch(() => {});
    },
  };
}

async function putWhole(client: S3Client, key: string, bytes: Uint8Array, contentType: string): Promise<void> {
  const response = await client.send('PUT', key, { body: bytes, headers: { 'content-type': contentType } });
  if (!response.ok) await client.fail('PUT', key, response);
  await response.arrayBuffer();
}

/** Up to one part is held in memory; a body that outgrows it goes up as a multipart upload. */
export async function putStream({ client, settings, keyOf }: S3Bucket, path: string, body: ByteStream, contentType: string, maxBytes: number): Promise<BlobInfo> {
  const key = keyOf(path);
  let parts: Uint8Array[] = [];
  let held = 0;
  let total = 0;
  let upload: Awaited<ReturnType<typeof multipart>> | null = null;
  try {
    for await (const chunk of body) {
      total += chunk.byteLength;
      if (total > maxBytes) throw new BlobTooLargeError(maxBytes);
      parts.push(chunk.slice());
      held += chunk.byteLength;
      if (held >= settings.partBytes) {
        upload ??= await multipart(client, key, contentType);
        await upload.part(concatBytes(parts, held));
        parts = [];
        held = 0;
      }
    }
    if (upload) {
      if (held > 0) await upload.part(concatBytes(parts, held));
      await upload.complete();
    } else {
      await putWhole(client, key, concatBytes(parts, held), contentType);
    }
  } catch (error) {
    // The put's own error is the one thrown; the parts of an abort that failed stay until the bucket's
    // lifecycle rule for incomplete multipart uploads (docs/adapters.md).
    await upload?.abort().catch(() => {});
    throw error;
  }
  return { size: total, contentType };
}

/** `length` bytes from `offset` with a range GET; `port` answers whether an object is there when none are asked for. */
export async function readObjectRange({ client, keyOf }: S3Bucket, port: BlobPort, path: string, offset: number, length: number): Promise<Uint8Array | null> {
  const key = keyOf(path);
  if (length <= 0) return (await port.head(path)) ? new Uint8Array(0) : null;
  const response = await client.send('GET', key, { headers: { range: `bytes=${offset}-${offset + length - 1}` } });
  if (response.status === 404) return null;
  // An empty object has no byte 0, and no object a byte past its end: S3 answers 416.
  if (response.status === 416) {
    await response.arrayBuffer();
    return new Uint8Array(0);
  }
  if (!response.ok) await client.fail('GET', key, response);
  // Read only the bytes the object has: s3rver announces one byte of an empty object and
  // never sends it. A store that ignores Range sends everything (200): skip to the offset.
  const total = Number(/\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1] ?? Infinity);
  let skip = response.status === 206 ? 0 : offset;
  const wanted = Math.max(0, Math.min(length, total - offset));
  const parts: Uint8Array[] = [];
  let held = 0;
  if (wanted > 0) {
    for await (const chunk of streamOf(response.body)) {
      const kept = skip >= chunk.byteLength ? chunk.subarray(chunk.byteLength) : chunk.subarray(skip);
      skip = Math.max(0, skip - chunk.byteLength);
      parts.push(kept);
      held += kept.byteLength;
      if (held >= wanted) break;
    }
  } else {
    // The body is not wanted: cancelled to free the connection, whatever the cancel says.
    await response.body?.cancel().catch(() => {});
  }
  return concatBytes(parts, held).slice(0, length);
}

export async function getObject({ client, keyOf }: S3Bucket, path: string): Promise<(BlobInfo & { body: ByteStream }) | null> {
  const key = keyOf(path);
  const response = await client.send('GET', key, { stream: true });
  if (response.status === 404) {
    await response.arrayBuffer();
    return null;
  }
  if (!response.ok) await client.fail('GET', key, response);
  // Size and bytes come from one response: one version of the object, even during a put.
  return { ...infoOf(response), body: streamOf(response.body) };
}

/**
 * CopyObject, then the source goes: a reader of `to` sees the old object or the whole copy.
 * CopyObject takes at most 5 GiB: a larger object (a resumable upload's) is copied in parts,
 * or, on a store without UploadPartCopy, streamed through `port` as a multipart put (one part in memory).
 */
export async function moveObject({ client, settings, keyOf }: S3Bucket, port: BlobPort, from: string, to: string): Promise<BlobInfo | null> {
  const source = keyOf(from);
  const key = keyOf(to);
  const staged = await port.head(from);
  if (staged && staged.size > s3MaxCopyBytes) {
    if ((await copyInParts(client, settings.bucket, source, key, staged.size, staged.contentType)) === 'unsupported') {
      const blob = await port.get(from);
      if (!blob) return null;
      await port.put(to, blob.body, { contentType: blob.contentType, maxBytes: blob.size });
    }
    await port.delete(from);
    return port.head(to);
  }
  const response = await client.send('PUT', key, { headers: { 'x-amz-copy-source': `/${settings.bucket}/${encodeKey(source)}` }, slow: true });
  if (response.status === 404) {
    await response.arrayBuffer();
    return null;
  }
  if (!response.ok) await client.fail('PUT', key, response);
  // S3 may answer 200 and put the copy's failure in the body.
  const text = await response.text();
  if (/<Error>/.test(text)) {
    if (/<Code>NoSuchKey<\/Code>/.test(text)) return null;
    throw new S3RequestError('PUT', key, 200, /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? null);
  }
  await port.delete(from);
  return port.head(to);
}
