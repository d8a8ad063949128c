/**
 * Run by runtimes.test.ts under Bun and Deno (not a test file itself): the typed client creates a
 * listing and uploads a file with progress against the server named in MARKETKIT_URL.
 */
import { createClient } from '../../client/index.js';

const env = (name: string): string => (globalThis as any).process?.env?.[name] ?? (globalThis as any).Deno.env.get(name);
const client = createClient({ baseUrl: env('MARKETKIT_URL'), token: env('MARKETKIT_API_TOKEN'), retry: false });
const asset = await client.createAsset({ title: 'Runtime pack', slug: `runtime-${crypto.randomUUID()}` });
const progress: number[] = [];
const confirmed = await client.uploadFile(asset.id, new Uint8Array(200_000).fill(1), { filename: 'pack.zip', onProgress: (p) => progress.push(p.loaded) });
// A File above the (lowered) threshold goes resumably: checksummed chunks through this runtime's fetch and Web Crypto.
const bytes = new Uint8Array(3 * 2 ** 20).map((_, i) => (i * 31) % 251);
const resumableProgress: number[] = [];
const resumable = await client.uploadFile(asset.id, new File([bytes], 'big.bin'), { resumableThreshold: 2 ** 20, chunkSize: 2 ** 20, onProgress: (p) => resumableProgress.push(p.loaded) });
const digest = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (byte) => byte.toString(16).padStart(2, '0')).join('');
const refused = await client.getAsset(crypto.randomUUID()).catch((error) => `${error.name} ${error.status} ${error.code}`);
console.log(
  JSON.stringify({
    file_size: confirmed.file.file_size,
    last_progress: progress.at(-1),
    resumable: { progress: resumableProgress, sha256_matches: resumable.file.sha256 === digest },
    refused,
  }),
);
