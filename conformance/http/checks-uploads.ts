/** Checks of the upload flow, images and submit. */
import { ensure, expectError, expectStatus, NotCertified, sampleBytes, timestampPattern, type Check } from './check.js';
import { confirmFile, createDraft, expectNothingToConfirm, issueFileUrl, issueImageUrl, uploadFile, uploadImage } from './flows.js';

/** The server's clock at the time of an answer, from its Date header (else ours). */
function serverNow(headers: Headers): number {
  return Date.parse(headers.get('date') ?? '') || Date.now();
}

/** The URL with one character of its longest query value (the signature, wherever it is named) changed. */
function tampered(signedUrl: string): string {
  const url = new URL(signedUrl);
  const [name, value] = [...url.searchParams.entries()].sort((a, b) => b[1].length - a[1].length)[0] ?? ['signature', ''];
  const i = Math.floor(value.length / 2);
  url.searchParams.set(name, value.slice(0, i) + (value[i] === 'A' ? 'B' : 'A') + value.slice(i + 1));
  return url.href;
}

export const uploadChecks: Check[] = [
  {
    id: 'rest.uploads.flow',
    title: 'upload-url, PUT without Authorization, confirm-file',
    requirements: ['UPLOAD-URL', 'UPLOAD-PUT-NO-AUTH', 'UPLOAD-CONFIRM', 'UPLOAD-CONFIRM-REPLACES'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      const asset = await createDraft(ctx);
      const issued = await issueFileUrl(ctx, asset.id, 'Castle Pack.zip');
      const u = issued.body;
      ensure('UPLOAD-URL', typeof u.signed_url === 'string' && u.method === 'PUT' && typeof u.storage_path === 'string' && u.storage_path.startsWith(`assets/${asset.id}/files/`), '{ signed_url, storage_path under assets/{id}/files/, method: "PUT" }', issued);
      const ttl = Date.parse(u.expires_at) - serverNow(issued.headers);
      ensure('UPLOAD-URL', timestampPattern.test(u.expires_at) && ttl > 0 && ttl <= 2 * 3600_000 + 2000, 'expires_at in the future, within 2 hours', issued);
      const put = await client.put(u.signed_url, sampleBytes.zip, 'application/zip');
      expectStatus('UPLOAD-PUT-NO-AUTH', put, [200, 201, 204]);
      const confirmed = await confirmFile(ctx, asset.id, u.storage_path, sampleBytes.zip.byteLength);
      expectStatus('UPLOAD-CONFIRM', confirmed, 200);
      const f = confirmed.body?.file;
      ensure('UPLOAD-CONFIRM', confirmed.body?.success === true && f?.storage_path === u.storage_path && f.file_size === sampleBytes.zip.byteLength && f.content_type === 'application/zip' && timestampPattern.test(f.confirmed_at), '{ success: true, file: { storage_path, file_size, content_type: application/zip, confirmed_at } }', confirmed);
      const detail = await client.get(`/assets/${asset.id}`, fixtures.seller);
      ensure('UPLOAD-CONFIRM', detail.body?.file?.storage_path === u.storage_path, 'GET to show the confirmed file', detail);
      const bigger = new Uint8Array(100).fill(7);
      const replaced = await uploadFile(ctx, asset.id, bigger);
      const after = await client.get(`/assets/${asset.id}`, fixtures.seller);
      ensure('UPLOAD-CONFIRM-REPLACES', after.body?.file?.storage_path === replaced.issued.storage_path && after.body.file.file_size === 100, 'the new file in place of the old one', after);
    },
  },
  {
    id: 'rest.uploads.confirmed-immutable',
    title: 'a replayed signed URL changes no confirmed file; an unused one stops working after submit',
    requirements: ['UPLOAD-CONFIRMED-IMMUTABLE', 'UPLOAD-URL-CLOSED'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      const asset = await createDraft(ctx);
      const { issued } = await uploadFile(ctx, asset.id);
      const unused = await issueFileUrl(ctx, asset.id, 'unused.zip');
      const image = await issueImageUrl(ctx, asset.id, 'cover.webp');
      expectStatus('UPLOAD-PUT-NO-AUTH', await client.put(image.body.signed_url, sampleBytes.webp, 'image/webp'), [200, 201, 204]);
      expectStatus('IMAGE-CONFIRM', await client.post(`/assets/${asset.id}/confirm-image`, fixtures.seller, { public_url: image.body.public_url }), 201);
      /** The public image as text (a redirect to the store followed once): compared, never shown. */
      const served = async () => {
        const first = await client.get(image.body.public_url);
        const location = first.headers.get('location');
        return first.status >= 300 && first.status < 400 && location ? (await client.get(new URL(location, image.body.public_url).href)).body : first.body;
      };
      const reviewedImage = await served();
      const other = new Uint8Array(sampleBytes.zip.byteLength + 40).fill(9);
      const unchanged = async (stage: string) => {
        await client.put(image.body.signed_url, sampleBytes.png, 'image/png');
        ensure('UPLOAD-CONFIRMED-IMMUTABLE', (await served()) === reviewedImage, `${stage}: the public image serves the bytes confirmed`);
        // A store that cannot revoke its URLs (S3) may take the bytes; they must reach nothing.
        await client.put(issued.signed_url, other, 'application/zip');
        const detail = await client.get(`/assets/${asset.id}`, fixtures.seller);
        ensure('UPLOAD-CONFIRMED-IMMUTABLE', detail.body?.file?.storage_path === issued.storage_path && detail.body.file.file_size === sampleBytes.zip.byteLength, `${stage}: the confirmed file as it was`, detail);
        const reconfirm = await confirmFile(ctx, asset.id, issued.storage_path, other.byteLength);
        ensure('UPLOAD-CONFIRMED-IMMUTABLE', reconfirm.status >= 400 && reconfirm.status < 500, `${stage}: confirm-file of the replayed size refused`, reconfirm);
      };
      await unchanged('after confirm');
      expectStatus('SUBMIT-PENDING', await client.post(`/assets/${asset.id}/submit`, fixtures.seller), 200);
      await unchanged('after submit');
      const late = await client.put(unused.body.signed_url, other, 'application/zip');
      if (late.status < 300) {
        const confirmLate = await confirmFile(ctx, asset.id, unused.body.storage_path, other.byteLength);
        ensure('UPLOAD-URL-CLOSED', confirmLate.status === 409, 'the store took the bytes, so confirming them must be refused (409: the listing is pending)', confirmLate);
      } else {
        ensure('UPLOAD-URL-CLOSED', late.status === 403 || late.status === 404 || late.status === 409, 'a PUT to an unused URL of a pending listing refused', late);
      }
    },
  },
  {
    id: 'rest.uploads.filenames',
    title: 'filenames that could escape are refused',
    requirements: ['UPLOAD-URL-FILENAME'],
    async run(ctx) {
      const asset = await createDraft(ctx);
      for (const filename of ['../escape.zip', 'a/b.zip', 'a\\b.zip', '.hidden', 'bell\u0007.zip', '']) {
        expectError('UPLOAD-URL-FILENAME', await ctx.client.post(`/assets/${asset.id}/upload-url`, ctx.fixtures.seller, { filename }), 400, 'INVALID_INPUT', 'filename');
      }
    },
  },
  {
    id: 'rest.uploads.signatures',
    title: 'an altered signature or another path is 403',
    requirements: ['UPLOAD-PUT-TAMPERED-403', 'UPLOAD-PUT-OTHER-PATH-403'],
    async run(ctx) {
      const { client } = ctx;
      const asset = await createDraft(ctx);
      const issued = await issueFileUrl(ctx, asset.id, 'conformance-file.zip');
      const bad = await client.put(tampered(issued.body.signed_url), sampleBytes.zip, 'application/zip');
      expectStatus('UPLOAD-PUT-TAMPERED-403', bad, 403);
      const unsigned = new URL(issued.body.signed_url);
      unsigned.search = '';
      expectStatus('UPLOAD-PUT-TAMPERED-403', await client.put(unsigned.href, sampleBytes.zip, 'application/zip'), [403, 401]);
      const elsewhere = issued.body.signed_url.replace('conformance-file.zip', 'conformance-other.zip');
      ensure('UPLOAD-PUT-OTHER-PATH-403', elsewhere !== issued.body.signed_url, 'the signed URL to contain the file name sent', issued);
      expectStatus('UPLOAD-PUT-OTHER-PATH-403', await client.put(elsewhere, sampleBytes.zip, 'application/zip'), 403);
      await expectNothingToConfirm(ctx, 'UPLOAD-PUT-TAMPERED-403', asset.id, issued.body.storage_path);
    },
  },
  {
    id: 'rest.uploads.expiry',
    title: 'a PUT after the signed URL expired is 403',
    requirements: ['UPLOAD-PUT-EXPIRED'],
    async run(ctx) {
      const { client } = ctx;
      const asset = await createDraft(ctx);
      const issued = await issueFileUrl(ctx, asset.id, 'late.zip');
      const ttl = Date.parse(issued.body.expires_at) - serverNow(issued.headers);
      if (!(ttl <= ctx.settings.expiryWaitSeconds * 1000)) {
        throw new NotCertified(`upload URLs live ${Math.round(ttl / 1000)} s here; this check waits at most ${ctx.settings.expiryWaitSeconds} s (--expiry-wait), so it needs a server started with a short upload URL lifetime`);
      }
      // The Date header has one-second resolution: wait a second more than the lifetime it shows.
      await new Promise((resolve) => setTimeout(resolve, Math.max(ttl, 0) + 1500));
      const late = await client.put(issued.body.signed_url, sampleBytes.zip, 'application/zip');
      expectStatus('UPLOAD-PUT-EXPIRED', late, 403);
      await expectNothingToConfirm(ctx, 'UPLOAD-PUT-EXPIRED', asset.id, issued.body.storage_path);
    },
  },
  {
    id: 'rest.uploads.confirm-invalid',
    title: 'confirm-file refuses paths not issued, a missing object, a wrong size',
    requirements: ['UPLOAD-CONFIRM-INVALID'],
    async run(ctx) {
      const { client } = ctx;
      const asset = await createDraft(ctx);
      const other = await createDraft(ctx);
      const issued = await issueFileUrl(ctx, asset.id, 'pack.zip');
      const path = issued.body.storage_path;
      const size = sampleBytes.zip.byteLength;
      expectError('UPLOAD-CONFIRM-INVALID', await confirmFile(ctx, asset.id, path, size), 400, 'INVALID_INPUT');
      expectStatus('UPLOAD-PUT-NO-AUTH', await client.put(issued.body.signed_url, sampleBytes.zip, 'application/zip'), [200, 201, 204]);
      expectError('UPLOAD-CONFIRM-INVALID', await confirmFile(ctx, asset.id, path, size + 1), 400, 'INVALID_INPUT', 'file_size');
      expectError('UPLOAD-CONFIRM-INVALID', await confirmFile(ctx, other.id, path, size), 400, 'INVALID_INPUT', 'storage_path');
      expectError('UPLOAD-CONFIRM-INVALID', await confirmFile(ctx, asset.id, `assets/${asset.id}/files/made-up/pack.zip`, size), 400, 'INVALID_INPUT', 'storage_path');
      expectStatus('UPLOAD-CONFIRM', await confirmFile(ctx, asset.id, path, size), 200);
    },
  },
  {
    id: 'rest.images',
    title: 'image upload-url, confirm-image, primary and order',
    requirements: ['IMAGE-URL', 'IMAGE-CONFIRM', 'IMAGE-CONFIRM-NOT-IMAGE', 'IMAGE-ORDER'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      const asset = await createDraft(ctx);
      expectError('IMAGE-URL', await client.post(`/assets/${asset.id}/images/upload-url`, fixtures.seller, { filename: 'anim.gif' }), 400, 'INVALID_INPUT', 'filename');
      const issued = await issueImageUrl(ctx, asset.id, 'cover.webp');
      const u = issued.body;
      ensure('IMAGE-URL', ['signed_url', 'storage_path', 'public_url', 'expires_at'].every((k) => typeof u[k] === 'string') && u.method === 'PUT', '{ signed_url, storage_path, public_url, expires_at, method: "PUT" }', issued);
      expectStatus('UPLOAD-PUT-NO-AUTH', await client.put(u.signed_url, sampleBytes.webp, 'image/webp'), [200, 201, 204]);
      const first = await client.post(`/assets/${asset.id}/confirm-image`, fixtures.seller, { public_url: u.public_url });
      expectStatus('IMAGE-CONFIRM', first, 201);
      const f = first.body;
      ensure('IMAGE-CONFIRM', f?.success === true && typeof f.image_id === 'string' && f.id === f.image_id && f.is_primary === true && f.public_url === u.public_url && f.storage_path === u.storage_path && f.position === 0, '{ success: true, image_id, id: image_id, is_primary: true, public_url, storage_path, position: 0 }', first);
      const second = await uploadImage(ctx, asset.id);
      expectStatus('IMAGE-CONFIRM', second, 201);
      ensure('IMAGE-CONFIRM', second.body?.is_primary === false && second.body.position === 1, 'the second image not primary, position 1', second);
      const detail = await client.get(`/assets/${asset.id}`, fixtures.seller);
      const ids = (detail.body?.images ?? []).map((image: { id: string }) => image.id);
      ensure('IMAGE-ORDER', JSON.stringify(ids) === JSON.stringify([f.id, second.body.id]) && detail.body.images[0].is_primary === true, 'images [primary, second]', detail);
      const fake = await issueImageUrl(ctx, asset.id, 'fake.png');
      expectStatus('UPLOAD-PUT-NO-AUTH', await client.put(fake.body.signed_url, 'not an image at all', 'image/png'), [200, 201, 204]);
      expectError('IMAGE-CONFIRM-NOT-IMAGE', await client.post(`/assets/${asset.id}/confirm-image`, fixtures.seller, { public_url: fake.body.public_url }), 400, 'INVALID_INPUT');
    },
  },
  {
    id: 'rest.images.limit',
    title: 'at most 10 images per asset',
    requirements: ['IMAGE-LIMIT'],
    async run(ctx) {
      const asset = await createDraft(ctx);
      for (let i = 0; i < 10; i++) expectStatus('IMAGE-CONFIRM', await uploadImage(ctx, asset.id), 201);
      expectError('IMAGE-LIMIT', await uploadImage(ctx, asset.id), 409, 'CONFLICT');
    },
  },
  {
    id: 'rest.images.arrange',
    title: 'the gallery in a new order, the first the primary (an extension)',
    requirements: ['IMAGE-ARRANGE'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      const asset = await createDraft(ctx);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await uploadImage(ctx, asset.id)).body?.id);
      const [a, b, c] = ids as [string, string, string];
      const order = (imageIds: string[]) => client.request('PUT', `/assets/${asset.id}/images/order`, { token: fixtures.seller, json: { image_ids: imageIds } });
      const arranged = await order([c, a, b]);
      if ([404, 405].includes(arranged.status)) throw new NotCertified('the server does not arrange galleries (PUT /assets/{id}/images/order, an extension: docs/rest.md)');
      expectStatus('IMAGE-ARRANGE', arranged, 200);
      const shown = (images: { id: string; is_primary: boolean }[] | undefined) => JSON.stringify((images ?? []).map((image) => [image.id, image.is_primary]));
      const expected = JSON.stringify([[c, true], [a, false], [b, false]]);
      ensure('IMAGE-ARRANGE', shown(arranged.body?.images) === expected, `images [${c} primary, ${a}, ${b}]`, arranged);
      const detail = await client.get(`/assets/${asset.id}`, fixtures.seller);
      ensure('IMAGE-ARRANGE', shown(detail.body?.images) === expected, 'GET /assets/{id} listing the new order', detail);
      for (const wrong of [[c, a, a], [c, a], [c, a, b, crypto.randomUUID()]]) expectError('IMAGE-ARRANGE', await order(wrong), 400, 'INVALID_INPUT', 'image_ids');
      const after = await client.get(`/assets/${asset.id}`, fixtures.seller);
      ensure('IMAGE-ARRANGE', shown(after.body?.images) === expected, 'a refused order changing nothing', after);
    },
  },
  {
    id: 'rest.submit',
    title: 'submit: NO_FILE, pending, scheduled, INVALID_STATUS',
    requirements: ['SUBMIT-NO-FILE-422', 'SUBMIT-PENDING', 'SUBMIT-SCHEDULED', 'SUBMIT-STATUS-409', 'UPLOAD-URL-STATUS-409'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      const asset = await createDraft(ctx);
      expectError('SUBMIT-NO-FILE-422', await client.post(`/assets/${asset.id}/submit`, fixtures.seller), 422, 'NO_FILE');
      await uploadFile(ctx, asset.id);
      const submitted = await client.post(`/assets/${asset.id}/submit`, fixtures.seller);
      expectStatus('SUBMIT-PENDING', submitted, 200);
      ensure('SUBMIT-PENDING', submitted.body?.success === true && submitted.body.id === asset.id && submitted.body.status === 'pending' && 'scheduled_publish_at' in submitted.body, '{ success: true, id, status: "pending", scheduled_publish_at }', submitted);
      const read = await client.get(`/assets/${asset.id}`, fixtures.seller);
      ensure('SUBMIT-PENDING', read.body?.status === 'pending', 'GET to show status pending', read);
      expectError('SUBMIT-STATUS-409', await client.post(`/assets/${asset.id}/submit`, fixtures.seller), 409, 'INVALID_STATUS');
      expectError('UPLOAD-URL-STATUS-409', await client.post(`/assets/${asset.id}/upload-url`, fixtures.seller, { filename: 'again.zip' }), 409, 'INVALID_STATUS');
      const future = new Date(Date.now() + 7 * 86_400_000).toISOString();
      const later = await createDraft(ctx, { scheduled_publish_at: future });
      await uploadFile(ctx, later.id);
      const scheduled = await client.post(`/assets/${later.id}/submit`, fixtures.seller);
      expectStatus('SUBMIT-SCHEDULED', scheduled, 200);
      ensure('SUBMIT-SCHEDULED', scheduled.body?.status === 'scheduled' && Date.parse(scheduled.body.scheduled_publish_at) === Date.parse(future), 'status scheduled with the scheduled_publish_at sent', scheduled);
      expectError('SUBMIT-STATUS-409', await client.post(`/assets/${later.id}/submit`, fixtures.seller), 409, 'INVALID_STATUS');
    },
  },
  {
    id: 'rest.submit.payouts',
    title: 'a paid listing needs payouts connected',
    requirements: ['SUBMIT-PAYOUTS-409'],
    needs: ['noPayouts'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      const token = fixtures.noPayouts!;
      const asset = await createDraft(ctx, { pricing_type: 'fixed', price: 5 }, token);
      expectError('SUBMIT-PAYOUTS-409', await client.post(`/assets/${asset.id}/submit`, token), 422, 'NO_FILE');
      await uploadFile(ctx, asset.id, sampleBytes.zip, token);
      expectError('SUBMIT-PAYOUTS-409', await client.post(`/assets/${asset.id}/submit`, token), 409, 'PAYOUTS_REQUIRED');
      const free = await createDraft(ctx, {}, token);
      await uploadFile(ctx, free.id, sampleBytes.zip, token);
      expectStatus('SUBMIT-PAYOUTS-409', await client.post(`/assets/${free.id}/submit`, token), 200);
    },
  },
  {
    id: 'rest.uploads.live',
    title: 'upload-url on a published listing is 409 LISTING_IS_LIVE',
    requirements: ['UPLOAD-URL-LIVE-409', 'PUBLISHED-RULES'],
    unavailable: (ctx) => (ctx.settings.publishedAssetId ? null : 'needs --published-asset (a published listing of the --token seller)'),
    async run({ client, fixtures, settings }) {
      const id = settings.publishedAssetId!;
      const read = await client.get(`/assets/${id}`, fixtures.seller);
      ensure('UPLOAD-URL-LIVE-409', read.status === 200 && read.body.status === 'published', 'the --published-asset listing to be published', read);
      expectError('UPLOAD-URL-LIVE-409', await client.post(`/assets/${id}/upload-url`, fixtures.seller, { filename: 'v2.zip' }), 409, 'LISTING_IS_LIVE');
      const description = `updated while live ${Date.now()}`;
      const patched = await client.patch(`/assets/${id}`, fixtures.seller, { description });
      expectStatus('PUBLISHED-RULES', patched, 200);
      ensure('PUBLISHED-RULES', patched.body?.description === description && patched.body.status === 'published', 'the change made, status still published', patched);
      expectError('PUBLISHED-RULES', await client.delete(`/assets/${id}`, fixtures.seller), 409, 'NOT_DRAFT');
      expectError('PUBLISHED-RULES', await client.post(`/assets/${id}/submit`, fixtures.seller), 409, 'INVALID_STATUS');
    },
  },
];
