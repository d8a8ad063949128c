/**
 * Signing an upload URL: the S3 adapter's SigV4 presign (aws4fetch, Web Crypto) against the core's
 * own HMAC upload URL (the baseline), in this process, no network. Rounds alternate the two, and
 * the ratio is of the means, as the other benchmarks do on a shared machine.
 *
 *   npx tsx bench/s3.bench.ts [--count 5000] [--rounds 4]
 */
import './help.js';
import { parseArgs } from 'node:util';
import { s3Blobs } from '../adapters/s3/index.js';
import { createUploadSigner } from '../core/operations/blob-urls.js';

const { values } = parseArgs({ options: { count: { type: 'string', default: '5000' }, rounds: { type: 'string', default: '4' } } });
const count = Number(values.count);
const rounds = Number(values.rounds);

const blobs = s3Blobs({ bucket: 'market-files', region: 'eu-central-1', accessKeyId: 'AKIAEXAMPLEKEY000001', secretAccessKey: 'example-secret', env: {} });
const signer = createUploadSigner(crypto.getRandomValues(new Uint8Array(32)));
const path = (i: number) => `assets/0b7a5f8e-4c0e-4d55-9a57-0d2f4f3f9a11/files/${i.toString(16).padStart(8, '0')}-4c0e-4d55-9a57-0d2f4f3f9a11/pack.zip`;

async function time(sign: (i: number) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < count; i++) await sign(i);
  return ((performance.now() - start) * 1000) / count;
}

const core = (i: number) => signer.sign(path(i), { expiresAtMs: Date.now() + 7200_000, maxBytes: 512 * 1024 * 1024 });
const s3 = (i: number) => blobs.issueDirectUpload(path(i), { maxBytes: 512 * 1024 * 1024, expiresAt: new Date(Date.now() + 7200_000) });
await time(core);
await time(s3);
const coreTimes: number[] = [];
const s3Times: number[] = [];
for (let round = 0; round < rounds; round++) {
  coreTimes.push(await time(core));
  s3Times.push(await time(s3));
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`upload URL signing, ${count} URLs x ${rounds} rounds`);
console.log(`  core HMAC URL (baseline)  ${mean(coreTimes).toFixed(1)} µs per URL`);
console.log(`  S3 SigV4 presign          ${mean(s3Times).toFixed(1)} µs per URL  (ratio ${(mean(s3Times) / mean(coreTimes)).toFixed(1)}x the baseline's time)`);
