import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from 'node:http';
import { createHash } from 'node:crypto';
import { as, jpegBytes, pngBytes, startServer, uploadFile, validAsset, webpBytes, type TestServer } from '../fixtures/server.js';

let server: TestServer;
before(async () => {
  server = await startServer({ maxFileBytes: 64 * 1024, maxImageBytes: 32 * 1024 });
});
after(() => server.close());

const put = (url: string, body: Uint8Array | string, headers: Record<string, string> = { 'content-type': 'application/zip' }) =>
  fetch(url, { method: 'PUT', headers, body: body as BodyInit });

async function draft(token = server.seller.token): Promise<string> {
  return (await as(server, token).post('/assets', validAsset())).body.id;
}

describe('the upload flow, end to end', () => {
  test('upload-url, PUT without Authorization, confirm-file, images, confirm-image, submit -> pending', async () => {
    const client = as(server, server.seller.token);
    const id = await draft();

    const issued = await client.post(`/assets/${id}/upload-url`, { filename: 'Castle Pack v1.zip' });
    assert.equal(issued.status, 200);
    assert.equal(issued.body.method, 'PUT');
    assert.match(issued.body.storage_path, new RegExp(`^assets/${id}/files/[0-9a-f-]{36}/Castle_Pack_v1\\.zip$`));
    assert.equal(Date.parse(issued.body.expires_at), Math.floor((server.clock.now() + 2 * 3600_000) / 1000) * 1000, 'signed URLs live 2 hours');

    const bytes = crypto.getRandomValues(new Uint8Array(40_000));
    const uploaded = await put(issued.body.signed_url, bytes);
    assert.equal(uploaded.status, 200);

    const confirmed = await client.post(`/assets/${id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: bytes.byteLength });
    assert.equal(confirmed.status, 200);
    assert.deepEqual(confirmed.body, {
      success: true,
      file: {
        storage_path: issued.body.storage_path,
        file_size: 40_000,
        content_type: 'application/zip',
        confirmed_at: confirmed.body.file.confirmed_at,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      },
    });

    const first = await uploadImageVia(client, id, webpBytes, 'cover.webp');
    assert.equal(first.status, 201);
    assert.equal(first.body.is_primary, true, 'the first image is primary');
    assert.equal(first.body.id, first.body.image_id);
    assert.equal(first.body.position, 0);
    const second = await uploadImageVia(client, id, jpegBytes, 'detail.jpg');
    assert.equal(second.body.is_primary, false);
    assert.equal(second.body.position, 1);

    const submitted = await client.post(`/assets/${id}/submit`);
    assert.deepEqual([submitted.status, submitted.body.status], [200, 'pending']);

    const detail = (await client.get(`/assets/${id}`)).body;
    assert.deepEqual(detail.images.map((image: { id: string }) => image.id), [first.body.id, second.body.id], 'primary first, then by position');
    const served = await fetch(detail.images[0].public_url);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/webp');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(new Uint8Array(await served.arrayBuffer()), webpBytes, 'the image reads back byte for byte');
  });

  test('a new confirmed file replaces the previous one, whose bytes are removed', async () => {
    const id = await draft();
    const firstFile = await uploadFile(server, server.seller.token, id, new Uint8Array(10));
    const secondFile = await uploadFile(server, server.seller.token, id, new Uint8Array(20));
    assert.notEqual(firstFile.file.storage_path, secondFile.file.storage_path);
    assert.equal(await server.marketplace.ports.blobs.head(firstFile.file.storage_path), null);
    assert.equal((await as(server, server.seller.token).get(`/assets/${id}`)).body.file.file_size, 20);
  });
});

async function uploadImageVia(client: ReturnType<typeof as>, id: string, bytes: Uint8Array, filename: string) {
  const issued = await client.post(`/assets/${id}/images/upload-url`, { filename });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  assert.equal(issued.body.public_url.split('?')[0], issued.body.signed_url.split('?')[0]);
  const type = filename.endsWith('.webp') ? 'image/webp' : filename.endsWith('.png') ? 'image/png' : 'image/jpeg';
  assert.equal((await put(issued.body.signed_url, bytes, { 'content-type': type })).status, 200);
  return client.post(`/assets/${id}/confirm-image`, { public_url: issued.body.public_url });
}

describe('signed URLs are refused as the contract says', () => {
  async function issued() {
    const id = await draft();
    return { id, ...(await as(server, server.seller.token).post(`/assets/${id}/upload-url`, { filename: 'a.zip' })).body };
  }

  test('an expired signature is 403 and stores nothing', async () => {
    const { signed_url, storage_path } = await issued();
    server.clock.advance(2 * 3600_000 + 1000);
    const res = await put(signed_url, 'late');
    assert.equal(res.status, 403);
    assert.deepEqual(await res.json(), { error: 'This upload URL has expired; ask for a new one.', code: 'FORBIDDEN' });
    assert.equal(await server.marketplace.ports.blobs.head(storage_path), null);
  });

  test('an altered signature, expiry, size limit or path is 403', async () => {
    const { signed_url, id } = await issued();
    const url = new URL(signed_url);
    const variants: URL[] = [];
    const sig = new URL(url);
    sig.searchParams.set('signature', url.searchParams.get('signature')!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')));
    variants.push(sig);
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    variants.push(later);
    const bigger = new URL(url);
    bigger.searchParams.set('max', String(Number(url.searchParams.get('max')) * 10));
    variants.push(bigger);
    const elsewhere = new URL(url);
    elsewhere.pathname = url.pathname.replace(/a\.zip$/, 'b.zip');
    variants.push(elsewhere);
    const otherAsset = new URL(url);
    otherAsset.pathname = url.pathname.replace(id, await draft());
    variants.push(otherAsset);
    const unsigned = new URL(url);
    unsigned.search = '';
    variants.push(unsigned);
    for (const variant of variants) {
      const res = await put(variant.href, 'bytes');
      assert.equal(res.status, 403, variant.href);
      assert.equal((await res.json()).code, 'FORBIDDEN');
    }
  });

  test('a body over the size limit is 413 and nothing partial is kept', async () => {
    const { signed_url, storage_path } = await issued();
    const res = await put(signed_url, new Uint8Array(64 * 1024 + 1));
    assert.equal(res.status, 413);
    assert.equal((await res.json()).code, 'PAYLOAD_TOO_LARGE');
    assert.equal(await server.marketplace.ports.blobs.head(storage_path), null);
  });

  test('a chunked body over the size limit (no Content-Length) is 413 too', async () => {
    const { signed_url, storage_path } = await issued();
    const chunk = new Uint8Array(16 * 1024);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const res = await fetch(signed_url, { method: 'PUT', body, duplex: 'half' } as RequestInit);
    assert.equal(res.status, 413);
    assert.equal(await server.marketplace.ports.blobs.head(storage_path), null);
  });

  test('dot segments resolve as Bun and Deno resolve them, so every binding answers alike', async () => {
    // Sent raw: fetch would resolve the dots itself before the server saw them.
    const cases: [string, number][] = [
      ['/api/v1/blobs/%2e%2e/%2E%2E/x', 404], // -> /api/x: no such route
      ['/api/v1/blobs/assets/%2e%2e/x', 403], // -> /api/v1/blobs/x: not signed
      ['/api/v1/blobs/assets/../../../../etc/passwd', 404],
      ['/api/v1/blobs/assets/%E0%A4%A/x', 404], // bad percent-encoding names no path
      ['/api/v1/blobs/assets//x', 404],
    ];
    for (const [path, status] of cases) assert.equal(await rawStatus('PUT', path), status, path);
  });

  test('a URL of a deleted listing is 404', async () => {
    const { signed_url, id } = await issued();
    assert.equal((await as(server, server.seller.token).delete(`/assets/${id}`)).status, 200);
    assert.equal((await put(signed_url, 'x')).status, 404);
  });

  test('an asset file is never served publicly', async () => {
    const { signed_url } = await issued();
    await put(signed_url, 'secret bytes');
    const res = await fetch(signed_url.split('?')[0]!);
    assert.equal(res.status, 404);
  });
});

describe('confirm refuses what was not uploaded here', () => {
  test('a path not issued for this asset, or made up, is 400 naming storage_path', async () => {
    const client = as(server, server.seller.token);
    const mine = await draft();
    const other = await draft();
    const issuedForOther = (await client.post(`/assets/${other}/upload-url`, { filename: 'a.zip' })).body;
    await put(issuedForOther.signed_url, 'abc');
    for (const storage_path of [issuedForOther.storage_path, `assets/${mine}/files/00000000-0000-4000-8000-000000000000/a.zip`, '../../etc/passwd']) {
      const res = await client.post(`/assets/${mine}/confirm-file`, { storage_path, file_size: 3 });
      assert.equal(res.status, 400, storage_path);
      assert.equal(res.body.code, 'INVALID_INPUT');
      assert.match(res.body.error, /^storage_path /);
    }
  });

  test('confirm before the PUT is 400', async () => {
    const client = as(server, server.seller.token);
    const id = await draft();
    const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'a.zip' })).body;
    const res = await client.post(`/assets/${id}/confirm-file`, { storage_path: issued.storage_path, file_size: 3 });
    assert.equal(res.status, 400);
    assert.match(res.body.error, /PUT the file/);
  });

  test('a wrong file_size is 400 naming file_size', async () => {
    const client = as(server, server.seller.token);
    const id = await draft();
    const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'a.zip' })).body;
    await put(issued.signed_url, 'abcd');
    const res = await client.post(`/assets/${id}/confirm-file`, { storage_path: issued.storage_path, file_size: 5 });
    assert.equal(res.status, 400);
    assert.match(res.body.error, /^file_size must equal the size of the uploaded file \(4 bytes\)$/);
    assert.equal((await client.get(`/assets/${id}`)).body.file, null, 'nothing was confirmed');
  });

  test('an image whose bytes are not WebP, PNG or JPEG is 400', async () => {
    const client = as(server, server.seller.token);
    const id = await draft();
    const issued = (await client.post(`/assets/${id}/images/upload-url`, { filename: 'evil.png' })).body;
    await put(issued.signed_url, '<html><script>alert(1)</script></html>', { 'content-type': 'image/png' });
    const res = await client.post(`/assets/${id}/confirm-image`, { public_url: issued.public_url });
    assert.equal(res.status, 400);
    assert.match(res.body.error, /^public_url is not a WebP, PNG or JPEG image$/);
    assert.equal((await fetch(issued.public_url)).status, 404, 'and it is not served either');
  });

  test('an image whose bytes are not the type its PUT declared is 400, and image/jpg names JPEG', async () => {
    const client = as(server, server.seller.token);
    const id = await draft();
    const issued = (await client.post(`/assets/${id}/images/upload-url`, { filename: 'shot.png' })).body;
    assert.equal((await put(issued.signed_url, jpegBytes, { 'content-type': 'image/png' })).status, 200);
    const res = await client.post(`/assets/${id}/confirm-image`, { public_url: issued.public_url });
    assert.equal(res.status, 400);
    assert.match(res.body.error, /^public_url was uploaded as image\/png, but its bytes are image\/jpeg/);
    const again = (await client.post(`/assets/${id}/images/upload-url`, { filename: 'shot.jpg' })).body;
    assert.equal((await put(again.signed_url, jpegBytes, { 'content-type': 'image/jpg' })).status, 200);
    assert.equal((await client.post(`/assets/${id}/confirm-image`, { public_url: again.public_url })).status, 201);
  });

  test('an image public_url of another listing is 400', async () => {
    const client = as(server, server.seller.token);
    const mine = await draft();
    const other = await draft();
    const issued = (await client.post(`/assets/${other}/images/upload-url`, { filename: 'a.png' })).body;
    await put(issued.signed_url, pngBytes, { 'content-type': 'image/png' });
    const res = await client.post(`/assets/${mine}/confirm-image`, { public_url: issued.public_url });
    assert.equal(res.status, 400);
    assert.match(res.body.error, /^public_url was not issued for this listing/);
  });

  test('filenames that could escape or are not images are refused', async () => {
    const client = as(server, server.seller.token);
    const id = await draft();
    for (const filename of ['../../etc/passwd', 'a/b.zip', 'a\\b.zip', '.hidden', '', 'x'.repeat(256), 'bad\u0000.zip']) {
      const res = await client.post(`/assets/${id}/upload-url`, { filename });
      assert.equal(res.status, 400, JSON.stringify(filename));
      assert.match(res.body.error, /^filename /);
    }
    const gif = await client.post(`/assets/${id}/images/upload-url`, { filename: 'anim.gif' });
    assert.equal(gif.status, 400);
    assert.match(gif.body.error, /\.webp, \.png, \.jpg or \.jpeg/);
    const odd = await client.post(`/assets/${id}/upload-url`, { filename: 'Ünïcode Pack (final).zip' });
    assert.equal(odd.status, 200);
    assert.match(odd.body.storage_path, /\/n_code_Pack_final_\.zip$/, 'a name is reduced to safe characters');
  });
});

/** A request with its target exactly as written, as a raw HTTP client would send it. */
function rawStatus(method: string, path: string): Promise<number> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers: { 'content-length': '1' } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end('x');
  });
}

describe('the Content-Type of a signed-URL PUT', () => {
  test('what is not one media type, or is a wildcard, is 400 naming Content-Type, and the URL stays unused', async () => {
    const client = as(server, server.seller.token);
    const id = await draft();
    const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip' })).body;
    for (const type of ['*/*', 'application/*', 'not a type', 'application/zip, text/plain', 'text/plain; charset', 'a/'.padEnd(210, 'b')]) {
      const res = await put(issued.signed_url, 'PK', { 'content-type': type });
      assert.equal(res.status, 400, type);
      const body = await res.json();
      assert.deepEqual([body.code, body.details[0].path], ['INVALID_INPUT', 'Content-Type'], type);
    }
    // The refused PUTs used nothing up: the URL still takes its one upload, with parameters kept and the type in lower case.
    assert.equal((await put(issued.signed_url, 'PK\u0003\u0004', { 'content-type': 'Application/ZIP; name="pack v1.zip"' })).status, 200);
    const confirmed = await client.post(`/assets/${id}/confirm-file`, { storage_path: issued.storage_path, file_size: 4 });
    assert.equal(confirmed.body.file.content_type, 'application/zip; name="pack v1.zip"');
  });

  test('no Content-Type is stored as application/octet-stream', async () => {
    const client = as(server, server.seller.token);
    const id = await draft();
    const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.bin' })).body;
    assert.equal((await fetch(issued.signed_url, { method: 'PUT', body: new Blob([new Uint8Array(8)]) })).status, 200);
    const confirmed = await client.post(`/assets/${id}/confirm-file`, { storage_path: issued.storage_path, file_size: 8 });
    assert.equal(confirmed.body.file.content_type, 'application/octet-stream');
  });

  test('an image URL takes image/webp, image/png or image/jpeg only: anything else is 415', async () => {
    const client = as(server, server.seller.token);
    const id = await draft();
    const issued = (await client.post(`/assets/${id}/images/upload-url`, { filename: 'shot.webp' })).body;
    const refused = await put(issued.signed_url, webpBytes, { 'content-type': 'application/zip' });
    assert.equal(refused.status, 415);
    assert.equal((await refused.json()).code, 'UNSUPPORTED_MEDIA_TYPE');
    assert.equal((await put(issued.signed_url, webpBytes, { 'content-type': 'image/webp' })).status, 200);
    assert.equal((await client.post(`/assets/${id}/confirm-image`, { public_url: issued.public_url })).status, 201);
  });
});

test('a client that hangs up mid-upload is not an internal error, and nothing partial is kept', async () => {
  const id = await draft();
  const issued = (await as(server, server.seller.token).post(`/assets/${id}/upload-url`, { filename: 'cut.zip' })).body;
  const url = new URL(issued.signed_url);
  await new Promise<void>((resolve) => {
    const req = request({ host: url.hostname, port: url.port, method: 'PUT', path: url.pathname + url.search, headers: { 'content-length': '50000' } });
    req.on('error', () => resolve());
    req.write(new Uint8Array(1000));
    setTimeout(() => {
      req.destroy();
      resolve();
    }, 50);
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await server.marketplace.ports.blobs.head(issued.storage_path), null);
  // The fixture's close() fails the run if the server answered anything with INTERNAL_ERROR.
});
