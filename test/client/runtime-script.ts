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
const refused = await client.getAsset(crypto.randomUUID()).catch((error) => `${error.name} ${error.status} ${error.code}`);
console.log(JSON.stringify({ file_size: confirmed.file.file_size, last_progress: progress.at(-1), refused }));
