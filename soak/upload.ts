/**
 * The soak's resumable uploads (docs/uploads.md): a listing, an upload URL, the file in PATCHes to
 * its tus `upload_url` with each chunk's checksum, resumed from HEAD after a refusal or a cut (as
 * tus clients do), then confirm-file with the SHA-256. The ledger keeps what the server recorded;
 * the end reads the stored bytes back.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { SoakHttp } from './http.js';
import { acknowledged, sleep, unique, type Ledger } from './ledger.js';

const MiB = 2 ** 20;
const tus = { 'tus-resumable': '1.0.0' };

/**
 * One upload of `size` bytes in chunks of `chunk`. Bounded: it gives up (and says so in the
 * ledger) after 40 refusals in a row or at `giveUpAt` (ms since the epoch).
 */
export async function oneUpload(http: SoakHttp, ledger: Ledger, giveUpAt: number, size = 6 * MiB, chunk = 2 * MiB): Promise<void> {
  const bytes = randomBytes(size);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const slug = `soak-up-${unique()}`;
  const listing = await http.send('create', 'POST', '/api/v1/assets', { body: { title: `Upload ${slug}`, slug } });
  if (listing.status !== 201) return;
  const listingId: string = listing.json.id;
  // Busy for good: no title update races the upload's own writes to the listing.
  acknowledged(ledger, listingId, listing.json.title, true);
  const issued = await http.send('upload', 'POST', `/api/v1/assets/${listingId}/upload-url`, { body: { filename: 'pack.bin', file_size: size } });
  if (issued.status !== 200) return;
  const storagePath: string = issued.json.storage_path;
  const url = new URL(issued.json.upload_url);
  const path = url.pathname + url.search;
  // The last steps, so that an upload given up says how it got there.
  const trail: string[] = [];
  const step = (what: string) => {
    trail.push(what);
    if (trail.length > 10) trail.shift();
  };
  const giveUp = (why: string) => void ledger.uploadFailures.push(`${storagePath}: ${why} (after ${trail.join(', ')})`);
  let offset = 0;
  for (let failures = 0; offset < size; ) {
    if (Date.now() > giveUpAt) return giveUp(`out of time at offset ${offset}`);
    const piece = bytes.subarray(offset, Math.min(size, offset + chunk));
    const checksum = `sha256 ${createHash('sha256').update(piece).digest('base64')}`;
    const answer = await http.send('upload', 'PATCH', path, {
      raw: piece,
      headers: { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset), 'upload-checksum': checksum },
    });
    step(`PATCH at ${offset} ${answer.status || 'no answer'}`);
    if (answer.status === 204) {
      offset = Number(answer.headers['upload-offset']);
      if (!Number.isInteger(offset)) return giveUp(`PATCH 204 with Upload-Offset ${answer.headers['upload-offset']}`);
      failures = 0;
      continue;
    }
    if (++failures > 40) return giveUp(`PATCH ${answer.status} ${answer.text.slice(0, 120)}`);
    // 423 (another request, or a killed instance's lease, holds it), 409 (the offset moved), a cut: ask where it stands.
    await sleep(500 * Math.min(failures, 6));
    const head = await http.send('upload', 'HEAD', path, { headers: tus });
    step(`HEAD ${head.status || 'no answer'}${head.status === 200 ? ` offset ${head.headers['upload-offset']}` : ''}`);
    if (head.status === 200) offset = Number(head.headers['upload-offset']);
  }
  // A 4xx is asked again twice over 10 s (to tell a refusal that lasts from one that passes), a 5xx or no answer up to 20 times.
  for (let tries = 0, refusals = 0; ; tries++) {
    const confirmed = await http.send('upload', 'POST', `/api/v1/assets/${listingId}/confirm-file`, { body: { storage_path: storagePath, file_size: size, sha256 } });
    if (confirmed.status === 200) return void ledger.uploads.push({ listingId, storagePath, sha256, recorded: confirmed.json.file?.sha256 ?? null });
    step(`confirm ${confirmed.status || 'no answer'}`);
    const refused = confirmed.status !== 0 && confirmed.status < 500;
    if ((refused && ++refusals > 2) || tries >= 20 || Date.now() > giveUpAt) return giveUp(`confirm ${confirmed.status} ${confirmed.text.slice(0, 120)}`);
    await sleep(refused ? 5000 : 1000);
  }
}
