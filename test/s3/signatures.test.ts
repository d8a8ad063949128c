import assert from 'node:assert/strict';
import { test } from 'node:test';
import { manualClock } from '../../adapters/memory/index.js';
import { s3Blobs } from '../../adapters/s3/index.js';
import { verifyPresignedUrl, type VerifyOptions } from '../fixtures/sigv4.js';

const credentials = { accessKeyId: 'AKIAEXAMPLEKEY000001', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const path = () => `assets/${crypto.randomUUID()}/files/${crypto.randomUUID()}/pack.zip`;
const start = Date.parse('2026-03-01T09:30:00.000Z');

function setup(extra: Partial<Parameters<typeof s3Blobs>[0]> = {}) {
  const clock = manualClock(start);
  const blobs = s3Blobs({ bucket: 'market-files', region: 'eu-central-1', ...credentials, clock, env: {}, ...extra });
  const check = (url: string, overrides: Partial<VerifyOptions> = {}) =>
    verifyPresignedUrl(url, { method: 'PUT', credentials: { ...credentials, ...(extra.sessionToken ? { sessionToken: extra.sessionToken } : {}) }, region: blobs.settings.region, now: clock.now(), ...overrides });
  return { clock, blobs, check };
}

test('an issued upload URL verifies under an independent SigV4 implementation, with the same credentials and clock', async () => {
  const variants = [
    {},
    { prefix: 'marketkit/' },
    { endpoint: 'http://127.0.0.1:9000', pathStyle: true },
    { endpoint: 'https://minio.example:9000/base', pathStyle: true, prefix: 'a/b' },
    { sessionToken: 'FwoGZXIvYXdzEXAMPLEsessiontoken//+=' },
    { region: 'auto', endpoint: 'https://0123456789abcdef.r2.cloudflarestorage.com' },
  ];
  for (const variant of variants) {
    const { blobs, check } = setup(variant);
    const { url } = await blobs.issueDirectUpload(path(), { maxBytes: 1000, expiresAt: new Date(start + 2 * 3600_000) });
    assert.equal(await check(url), 'ok', `${JSON.stringify(variant)}: ${url}`);
    const u = new URL(url);
    assert.equal(u.searchParams.get('X-Amz-Expires'), '7200');
    assert.equal(u.searchParams.get('X-Amz-Date'), '20260301T093000Z', 'dated by the marketplace clock');
    assert.equal(u.searchParams.get('X-Amz-SignedHeaders'), 'host', 'no content type or checksum the client would have to match');
    assert.ok(!/checksum/i.test(url), 'no x-amz-checksum parameter: a real S3 would refuse any non-empty body to it');
  }
});

test('the URL addresses the object: virtual-hosted by default, path-style on request, under the prefix', async () => {
  const at = path();
  const hosted = new URL((await setup().blobs.issueDirectUpload(at, { maxBytes: 1, expiresAt: new Date(start + 60_000) })).url);
  assert.equal(`${hosted.origin}${hosted.pathname}`, `https://market-files.s3.eu-central-1.amazonaws.com/${at}`);
  const pathStyle = new URL((await setup({ endpoint: 'http://127.0.0.1:9000/', pathStyle: true, prefix: 'mk' }).blobs.issueDirectUpload(at, { maxBytes: 1, expiresAt: new Date(start + 60_000) })).url);
  assert.equal(`${pathStyle.origin}${pathStyle.pathname}`, `http://127.0.0.1:9000/market-files/mk/${at}`);
});

test('an altered URL does not verify: another path, a longer life, another date, another signature, an added parameter, another method or secret', async () => {
  const { blobs, check } = setup();
  const { url } = await blobs.issueDirectUpload(path(), { maxBytes: 1000, expiresAt: new Date(start + 3600_000) });
  const altered = (change: (u: URL) => void) => {
    const u = new URL(url);
    change(u);
    return u.href;
  };
  const cases: [string, string, Partial<VerifyOptions>?][] = [
    ['another object', altered((u) => (u.pathname = u.pathname.replace('pack.zip', 'other.zip')))],
    ['another listing', altered((u) => (u.pathname = u.pathname.replace(/assets\/[^/]+/, `assets/${crypto.randomUUID()}`)))],
    ['a longer life', altered((u) => u.searchParams.set('X-Amz-Expires', '604800'))],
    ['another date', altered((u) => u.searchParams.set('X-Amz-Date', '20260302T093000Z'))],
    ['a flipped signature', altered((u) => u.searchParams.set('X-Amz-Signature', u.searchParams.get('X-Amz-Signature')!.replace(/^./, (c) => (c === '0' ? '1' : '0'))))],
    ['an added parameter', altered((u) => u.searchParams.set('x-amz-acl', 'public-read'))],
    ['another bucket', altered((u) => (u.hostname = u.hostname.replace('market-files', 'market-other')))],
    ['GET instead of PUT', url, { method: 'GET' }],
    ['a wrong secret', url, { credentials: { ...credentials, secretAccessKey: 'not-the-secret' } }],
  ];
  for (const [what, candidate, overrides] of cases) {
    assert.equal(await check(candidate, overrides), 'mismatch', what);
  }
});

test('an issued URL expires when the marketplace clock passes expires_at, not before', async () => {
  const { blobs, check, clock } = setup();
  const { url } = await blobs.issueDirectUpload(path(), { maxBytes: 1000, expiresAt: new Date(start + 3600_000) });
  clock.advance(3600_000);
  assert.equal(await check(url), 'ok');
  clock.advance(1000);
  assert.equal(await check(url), 'expired');
});

test('a lifetime past the 7 days SigV4 allows is a configuration error that says what to change', async () => {
  const { blobs } = setup();
  await assert.rejects(blobs.issueDirectUpload(path(), { maxBytes: 1, expiresAt: new Date(start + 8 * 86400_000) }), /at most 7 days.*uploadUrlTtlSeconds/);
});

test('a public base URL (CDN) gives images a stable public address; without one the marketplace serves them', async () => {
  const at = `assets/${crypto.randomUUID()}/images/${crypto.randomUUID()}/cover.webp`;
  assert.equal(setup({ publicBaseUrl: 'https://cdn.market.example/', prefix: 'mk/' }).blobs.publicUrl?.(at), `https://cdn.market.example/mk/${at}`);
  assert.equal(setup().blobs.publicUrl, undefined);
});

test('bad options name the option and say what it must be', () => {
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ bucket: 'Bad_Bucket' }, /bucket must be an S3 bucket name/],
    [{ bucket: 'b-1', endpoint: 'minio:9000' }, /endpoint must be an absolute http\(s\) URL/],
    [{ bucket: 'b-1', prefix: '/abs' }, /prefix must be folder names/],
    [{ bucket: 'b-1', partBytes: 1024 }, /partBytes must be at least 5 MiB/],
    [{ bucket: 'b-1', accessKeyId: 'only-the-id', secretAccessKey: undefined }, /give accessKeyId and secretAccessKey together/],
  ];
  for (const [options, message] of bad) {
    assert.throws(() => s3Blobs({ ...credentials, env: {}, ...options } as never), message);
  }
  assert.throws(() => s3Blobs({ bucket: 'b-1', env: {} }), /no credentials: give accessKeyId and secretAccessKey, or set AWS_ACCESS_KEY_ID/);
  const fromEnv = s3Blobs({ bucket: 'b-1', env: { AWS_ACCESS_KEY_ID: 'AKIA1', AWS_SECRET_ACCESS_KEY: 's', AWS_REGION: 'ap-south-1' } });
  assert.equal(fromEnv.settings.credentials.accessKeyId, 'AKIA1');
  assert.equal(fromEnv.settings.region, 'ap-south-1');
});

test('an image read URL verifies as a GET, and its response content type cannot be changed', async () => {
  const { blobs, check } = setup();
  const at = `assets/${crypto.randomUUID()}/images/${crypto.randomUUID()}/cover.webp`;
  const url = await blobs.readUrl(at, { contentType: 'image/webp', expiresAt: new Date(start + 600_000) });
  assert.equal(new URL(url).searchParams.get('response-content-type'), 'image/webp');
  assert.equal(await check(url, { method: 'GET' }), 'ok');
  assert.equal(await check(url, { method: 'PUT' }), 'mismatch', 'a read URL is no upload URL');
  const html = new URL(url);
  html.searchParams.set('response-content-type', 'text/html');
  assert.equal(await check(html.href, { method: 'GET' }), 'mismatch');
});
