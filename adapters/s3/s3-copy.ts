import { encodeKey, type S3Client } from './s3-client.js';
import { s3MaxParts } from './s3-resumable.js';

const GiB = 1024 ** 3;
/** CopyObject's limit on S3: a larger source is copied in parts (UploadPartCopy). */
export const s3MaxCopyBytes = 5 * GiB;

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Copies an object over 5 GiB (a resumable upload's, from its staging key) inside the store: a
 * multipart upload of UploadPartCopy ranges of 1 GiB (or more, to stay within 10,000 parts),
 * completed in one request, so the copy appears whole or not at all. 'unsupported' when the store
 * has no UploadPartCopy (s3rver answers 501): the caller then streams the bytes through instead.
 */
export async function copyInParts(client: S3Client, bucket: string, source: string, key: string, size: number, contentType: string): Promise<'copied' | 'unsupported'> {
  const started = await client.send('POST', key, { query: { uploads: '' }, headers: { 'content-type': contentType } });
  if (!started.ok) await client.fail('POST ?uploads', key, started);
  const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(await started.text())?.[1];
  if (!uploadId) throw new Error(`marketkit s3Blobs: the store started a multipart copy to ${key} without an UploadId`);
  const abort = async () => {
    const response = await client.send('DELETE', key, { query: { uploadId } });
    // Read only to free the connection; the copy's own error is the one thrown.
    await response.arrayBuffer().catch(() => {});
  };
  try {
    const partBytes = Math.max(GiB, Math.ceil(size / s3MaxParts));
    const etags: string[] = [];
    for (let from = 0; from < size; from += partBytes) {
      const to = Math.min(size, from + partBytes) - 1;
      const response = await client.send('PUT', key, {
        query: { partNumber: String(etags.length + 1), uploadId },
        headers: { 'x-amz-copy-source': `/${bucket}/${encodeKey(source)}`, 'x-amz-copy-source-range': `bytes=${from}-${to}` },
        slow: true,
      });
      const text = await response.text();
      if (response.status === 501 || /<Code>NotImplemented<\/Code>/.test(text)) {
        await abort();
        return 'unsupported';
      }
      const etag = /<ETag>([^<]+)<\/ETag>/.exec(text)?.[1];
      if (!response.ok || /<Error>/.test(text) || !etag) throw new Error(`marketkit s3Blobs: copying part ${etags.length + 1} to ${key} failed (${response.status}): ${/<Code>([^<]+)/.exec(text)?.[1] ?? 'no code'}`);
      etags.push(etag.replace(/&quot;/g, '"'));
    }
    const list = etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`).join('');
    const response = await client.send('POST', key, { query: { uploadId }, body: `<CompleteMultipartUpload>${list}</CompleteMultipartUpload>`, headers: { 'content-type': 'application/xml' }, slow: true });
    const text = await response.text();
    if (!response.ok || /<Error>/.test(text)) throw new Error(`marketkit s3Blobs: completing the multipart copy to ${key} failed (${response.status}): ${/<Code>([^<]+)/.exec(text)?.[1] ?? 'no code'}`);
    return 'copied';
  } catch (error) {
    await abort();
    throw error;
  }
}
