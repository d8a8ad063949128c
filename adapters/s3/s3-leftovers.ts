import type { S3Client } from './s3-client.js';

const unescapeXml = (text: string) => text.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const field = (xml: string, name: string) => {
  const found = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
  return found === undefined ? null : unescapeXml(found);
};
/** Pages of a listing read per sweep: a bucket of millions of objects is listed over several sweeps' worth of time, not at once. */
const maxPages = 100;

/**
 * What resumable uploads left under `prefix` that nothing touched for `untouchedForMs`
 * (core/ports/resumable-blobs.ts, removeLeftovers): tail objects (`<key>.tail-<n>`, by LastModified)
 * and multipart uploads (by Initiated), both from uploads whose record is gone (a crash between
 * the store and the record, a listing deleted during an append). A store without
 * ListMultipartUploads (s3rver: 501) keeps its multipart leftovers until the bucket's lifecycle
 * rule for incomplete multipart uploads removes them (docs/adapters.md). Resolves with how many it removed.
 */
export async function removeS3Leftovers(client: S3Client, prefix: string, untouchedForMs: number, now = Date.now()): Promise<number> {
  const old = (iso: string | null) => iso !== null && now - Date.parse(iso) > untouchedForMs;
  let removed = 0;
  let token: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const response = await client.send('GET', '', { query: { 'list-type': '2', prefix, ...(token ? { 'continuation-token': token } : {}) } });
    if (!response.ok) await client.fail('GET ?list-type=2', prefix, response);
    const xml = await response.text();
    for (const [, entry] of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
      const key = field(entry!, 'Key');
      if (key === null || !/\.tail-\d+$/.test(key) || !old(field(entry!, 'LastModified'))) continue;
      const gone = await client.send('DELETE', key);
      await gone.arrayBuffer();
      if (!gone.ok && gone.status !== 404) await client.fail('DELETE', key, gone);
      removed++;
    }
    token = field(xml, 'IsTruncated') === 'true' ? field(xml, 'NextContinuationToken') : null;
    if (token === null) break;
  }
  let markers: Record<string, string> = {};
  for (let page = 0; page < maxPages; page++) {
    const response = await client.send('GET', '', { query: { uploads: '', prefix, ...markers } });
    // No ListMultipartUploads here (s3rver answers 501): the bucket's lifecycle rule is the way.
    if ([400, 405, 501].includes(response.status)) {
      await response.arrayBuffer();
      break;
    }
    if (!response.ok) await client.fail('GET ?uploads', prefix, response);
    const xml = await response.text();
    for (const [, upload] of xml.matchAll(/<Upload>([\s\S]*?)<\/Upload>/g)) {
      const key = field(upload!, 'Key');
      const uploadId = field(upload!, 'UploadId');
      if (key === null || uploadId === null || !old(field(upload!, 'Initiated'))) continue;
      const aborted = await client.send('DELETE', key, { query: { uploadId } });
      await aborted.arrayBuffer();
      if (!aborted.ok && aborted.status !== 404) await client.fail('DELETE ?uploadId', key, aborted);
      removed++;
    }
    if (field(xml, 'IsTruncated') !== 'true') break;
    markers = { 'key-marker': field(xml, 'NextKeyMarker') ?? '', 'upload-id-marker': field(xml, 'NextUploadIdMarker') ?? '' };
  }
  return removed;
}
