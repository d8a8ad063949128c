import type { BlobPort } from '../../core/ports/blobs.js';
import { resolveS3Options, type S3BlobsOptions, type S3Settings } from './options.js';
import { encodeKey, s3Client } from './s3-client.js';
import type { ResumableBlobs } from '../../core/ports/resumable-blobs.js';
import { s3MaxSinglePutBytes, s3MinPartBytes, s3Resumable } from './s3-resumable.js';
import { getObject, infoOf, moveObject, putStream, readObjectRange, type S3Bucket } from './s3-objects.js';

export interface S3Blobs extends BlobPort {
  /** The validated settings (credentials included: do not log them). */
  readonly settings: S3Settings;
  /** The object key of a storage path: the prefix, then the path. */
  keyOf(path: string): string;
  issueDirectUpload: NonNullable<BlobPort['issueDirectUpload']>;
  readUrl: NonNullable<BlobPort['readUrl']>;
  /** Resumable uploads (upload_url) as S3 multipart uploads, their part list kept by the core (./s3-resumable.ts). */
  resumable: ResumableBlobs;
}

/**
 * The blob port on the S3 API (AWS S3, MinIO, R2, Ceph, ...). Sellers' uploads go straight to the
 * store through presigned PUT URLs, and image reads through presigned GET URLs (or a CDN); the
 * marketplace itself only HEADs, reads the first bytes of images, and deletes. See docs/adapters.md.
 */
export function s3Blobs(options: S3BlobsOptions): S3Blobs {
  const settings = resolveS3Options(options);
  const client = s3Client(settings);
  const keyOf = (path: string) => {
    if (path.split('/').some((s) => s === '' || s === '.' || s === '..')) {
      throw new Error(`marketkit s3Blobs: "${path}" is not a storage path (empty, "." or ".." segments)`);
    }
    return settings.prefix + path;
  };
  const bucket: S3Bucket = { client, settings, keyOf };
  const port: S3Blobs = {
    settings,
    keyOf,
    resumable: s3Resumable(client, keyOf, s3MinPartBytes, settings.prefix),
    maxDirectUploadBytes: s3MaxSinglePutBytes,
    put: (path, body, { contentType, maxBytes }) => putStream(bucket, path, body, contentType, maxBytes),
    async head(path) {
      const key = keyOf(path);
      const response = await client.send('HEAD', key);
      if (response.status === 404) return null;
      if (!response.ok) await client.fail('HEAD', key, response);
      return infoOf(response);
    },
    readStart: (path, length) => port.readRange!(path, 0, length),
    readRange: (path, offset, length) => readObjectRange(bucket, port, path, offset, length),
    get: (path) => getObject(bucket, path),
    move: (from, to) => moveObject(bucket, port, from, to),
    async delete(path) {
      const key = keyOf(path);
      const response = await client.send('DELETE', key);
      if (!response.ok && response.status !== 404) await client.fail('DELETE', key, response);
      await response.arrayBuffer();
    },
    async ping() {
      const response = await client.send('HEAD', '');
      if (!response.ok) await client.fail('HEAD', '', response);
    },
    async issueDirectUpload(path, { expiresAt }) {
      // No Content-Type or length is signed: a presigned PUT cannot bound the size (only POST
      // policies can), so the size is checked at confirm against the limit.
      return { url: await client.presign('PUT', keyOf(path), expiresAt.getTime()) };
    },
    async readUrl(path, { contentType, expiresAt }) {
      // The type is signed into the URL: the store answers with it, whatever the uploader sent.
      return client.presign('GET', keyOf(path), expiresAt.getTime(), { 'response-content-type': contentType });
    },
  };
  if (settings.publicBaseUrl) {
    const base = settings.publicBaseUrl;
    port.publicUrl = (path) => `${base}/${keyOf(path).split('/').map(encodeURIComponent).join('/')}`;
  }
  return port;
}

export type { S3BlobsOptions, S3Settings };
