/**
 * The soak's mixed load (docs/operations.md, "Soak and chaos"): reads, lists, creates, updates,
 * idempotent retries, MCP tool calls, sent open-loop at a given rate, and resumable uploads beside
 * them, each kept so that the end can check it: every write acknowledged (2xx) is there, a retried
 * key answers the first answer, and every confirmed upload's stored bytes are its recorded SHA-256's.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { SoakHttp } from './http.js';

const MiB = 2 ** 20;

export interface Ledger {
  /** Listings whose creation was acknowledged, with the title each update acknowledged last and those whose outcome is unknown since. */
  listings: Map<string, { title: string; unknown: string[]; busy: boolean }>;
  /** Idempotency keys sent twice whose answers named two listings, or whose retry was refused. */
  idempotencyViolations: string[];
  /** Uploads confirmed: their storage path and the SHA-256 the client computed and the server recorded. */
  uploads: { storagePath: string; sha256: string; recorded: string | null }[];
  /** Uploads given up (a refusal that is not a kill's: listed for the report). */
  uploadFailures: string[];
}

export const newLedger = (): Ledger => ({ listings: new Map(), idempotencyViolations: [], uploads: [], uploadFailures: [] });

const ok = (status: number) => status >= 200 && status < 300;
let serial = 0;
const unique = () => `${Date.now().toString(36)}-${(serial++).toString(36)}`;
const pick = <T>(items: T[]): T | undefined => items[Math.floor(Math.random() * items.length)];

/** One operation of the mix, chosen by weight. */
export async function oneOperation(http: SoakHttp, ledger: Ledger): Promise<void> {
  const ids = [...ledger.listings.keys()];
  const roll = Math.random();
  if (ids.length < 20 || roll < 0.1) return create(http, ledger);
  if (roll < 0.5) {
    await http.send('read', 'GET', `/api/v1/assets/${pick(ids)}`);
    return;
  }
  if (roll < 0.6) {
    await http.send('list', 'GET', '/api/v1/assets?limit=20');
    return;
  }
  if (roll < 0.75) return update(http, ledger, pick(ids)!);
  if (roll < 0.82) return idempotentCreate(http, ledger);
  const call = { jsonrpc: '2.0', id: serial++, method: 'tools/call', params: { name: 'get_asset', arguments: { asset_id: pick(ids) } } };
  await http.send('mcp', 'POST', '/api/mcp', { body: call, headers: { accept: 'application/json, text/event-stream' } });
}

async function create(http: SoakHttp, ledger: Ledger): Promise<void> {
  const slug = `soak-${unique()}`;
  const answer = await http.send('create', 'POST', '/api/v1/assets', { body: { title: `Soak ${slug}`, slug } });
  if (answer.status === 201) ledger.listings.set(answer.json.id, { title: answer.json.title, unknown: [], busy: false });
}

async function update(http: SoakHttp, ledger: Ledger, id: string): Promise<void> {
  const listing = ledger.listings.get(id)!;
  // One update of a listing at a time: the last one acknowledged is then what must be stored.
  if (listing.busy) return;
  listing.busy = true;
  const title = `Updated ${unique()}`;
  const answer = await http.send('update', 'PATCH', `/api/v1/assets/${id}`, { body: { title } });
  if (ok(answer.status)) listing.title = title, (listing.unknown = []);
  // No answer, or a 5xx: the update may or may not have been made.
  else if (answer.status === 0 || answer.status >= 500) listing.unknown.push(title);
  listing.busy = false;
}

async function idempotentCreate(http: SoakHttp, ledger: Ledger): Promise<void> {
  const key = `soak-key-${unique()}`;
  const body = { title: `Keyed ${key}`, slug: key };
  const first = await http.send('idempotent', 'POST', '/api/v1/assets', { body, headers: { 'idempotency-key': key } });
  // The retry a client makes: the same key, the same body, the same answer.
  let again = await http.send('idempotent', 'POST', '/api/v1/assets', { body, headers: { 'idempotency-key': key } });
  for (let tries = 0; (again.status === 409 && again.json?.code === 'IDEMPOTENCY_KEY_IN_USE') || again.status === 0 || again.status >= 500; tries++) {
    if (tries > 20) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
    again = await http.send('idempotent', 'POST', '/api/v1/assets', { body, headers: { 'idempotency-key': key } });
  }
  if (first.status === 201 && again.status === 201 && again.json.id !== first.json.id) ledger.idempotencyViolations.push(`${key}: ${first.json.id} then ${again.json.id}`);
  if (first.status === 201 && again.status !== 201) ledger.idempotencyViolations.push(`${key}: 201 then ${again.status} ${again.text.slice(0, 120)}`);
  if (again.status === 201) ledger.listings.set(again.json.id, { title: body.title, unknown: [], busy: false });
}

const tus = { 'tus-resumable': '1.0.0' };

/**
 * One resumable upload of `size` bytes in chunks of `chunk`, through whatever the chaos does: a
 * refused or cut PATCH asks HEAD for the offset and goes on from there, as tus clients do. Then
 * confirm-file with the SHA-256; the ledger keeps what the server recorded.
 */
export async function oneUpload(http: SoakHttp, ledger: Ledger, size = 6 * MiB, chunk = 2 * MiB): Promise<void> {
  const bytes = randomBytes(size);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const slug = `soak-up-${unique()}`;
  const listing = await http.send('create', 'POST', '/api/v1/assets', { body: { title: `Upload ${slug}`, slug } });
  if (listing.status !== 201) return;
  ledger.listings.set(listing.json.id, { title: listing.json.title, unknown: [], busy: true });
  const issued = await http.send('upload', 'POST', `/api/v1/assets/${listing.json.id}/upload-url`, { body: { filename: 'pack.bin', file_size: size } });
  if (issued.status !== 200) return;
  const path = new URL(issued.json.upload_url).pathname + new URL(issued.json.upload_url).search;
  let offset = 0;
  for (let failures = 0; offset < size; ) {
    const piece = bytes.subarray(offset, Math.min(size, offset + chunk));
    const checksum = `sha256 ${createHash('sha256').update(piece).digest('base64')}`;
    const answer = await http.send('upload', 'PATCH', path, { raw: piece, headers: { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset), 'upload-checksum': checksum } });
    if (answer.status === 204) {
      offset = Number(answer.headers['upload-offset']);
      failures = 0;
      continue;
    }
    if (++failures > 40) return void ledger.uploadFailures.push(`${issued.json.storage_path}: PATCH ${answer.status} ${answer.text.slice(0, 120)}`);
    await new Promise((resolve) => setTimeout(resolve, 500 * Math.min(failures, 6)));
    const head = await http.send('upload', 'HEAD', path, { headers: tus });
    if (head.status === 200) offset = Number(head.headers['upload-offset']);
  }
  for (let tries = 0; ; tries++) {
    const confirmed = await http.send('upload', 'POST', `/api/v1/assets/${listing.json.id}/confirm-file`, { body: { storage_path: issued.json.storage_path, file_size: size, sha256 } });
    if (confirmed.status === 200) return void ledger.uploads.push({ storagePath: issued.json.storage_path, sha256, recorded: confirmed.json.file.sha256 });
    if ((confirmed.status !== 0 && confirmed.status < 500) || tries > 20) return void ledger.uploadFailures.push(`${issued.json.storage_path}: confirm ${confirmed.status} ${confirmed.text.slice(0, 120)}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** Measures the balancer's peak: `concurrency` callers reading as fast as answers come, for `ms`; operations a second. */
export async function measurePeak(http: SoakHttp, ledger: Ledger, ms: number, concurrency = 32): Promise<number> {
  while (ledger.listings.size < 20) await create(http, ledger);
  const until = performance.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await oneOperation(http, ledger);
        done++;
      }
    }),
  );
  return done / (ms / 1000);
}
