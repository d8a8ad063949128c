/**
 * Hostile text on every page that shows it, over HTTP (no browser): a listing's title, description
 * and tags, a version's release notes, a moderator's reason, a token's name and an account's display
 * name holding markup and quotes are shown as text on the seller's, the moderator's and the
 * operator's pages (never a raw `<script>` or `<img src=x`, always the escaped form); U+0000 and a
 * bidirectional override (U+202E) are refused with a 400 naming the field. And an SVG uploaded as a
 * listing's image is refused (its content type at the PUT, its sniffed bytes at confirm-image), so
 * the image URL a page shows never answers SVG, and a real image answers its type with nosniff.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dashboardServiceKey, signedIn } from '../../fixtures/dashboard.js';
import { as, assetWithFile, putSigned, uploadImage, type TestServer } from '../../fixtures/server.js';
import { startServerOn, stopStores } from '../../fixtures/stores.js';

after(stopStores);

const script = '<script>alert(1)</script>';
const img = '"><img src=x onerror=alert(1)>';
const escaped = { script: '&lt;script&gt;alert(1)&lt;/script&gt;', img: '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;' };
/** A page with the hostile strings only as text. */
function asText(page: { status: number; text: string }, where: string, shows: (keyof typeof escaped)[]) {
  assert.equal(page.status, 200, where);
  assert.ok(!page.text.includes('<script>alert'), `${where}: no raw <script>`);
  assert.ok(!page.text.includes('<img src=x'), `${where}: no raw <img src=x`);
  for (const kind of shows) assert.ok(page.text.includes(escaped[kind]), `${where}: the escaped ${kind} is shown`);
}

describe('hostile text on the dashboard’s pages', () => {
  let server: TestServer;
  before(async () => {
    server = await startServerOn('memory', { serviceKey: dashboardServiceKey, dashboard: {} });
  });
  after(() => server.close());

  test('markup and quotes in every field are text on the seller’s, moderator’s and operator’s pages; U+0000 and U+202E are refused naming the field', async () => {
    const moderator = await server.account({ username: 'mod-hostile', is_moderator: true, seller_status: 'none' });
    const operator = await server.account({ username: 'op-hostile', is_operator: true, seller_status: 'none' });
    const api = as(server, server.seller.token);
    const { id } = await assetWithFile(server, server.seller.token, { title: `${script} ‘It’s’ "Pack"`, description: `${img}\n${script}`, tags: [script, img] });
    assert.equal((await uploadImage(server, server.seller.token, id)).status, 201);
    assert.equal((await api.post(`/assets/${id}/submit`)).status, 200);
    const { id: live } = await assetWithFile(server, server.seller.token, { title: 'Live Pack' });
    assert.equal((await api.post(`/assets/${live}/submit`)).status, 200);
    await server.marketplace.moderation.approve(live);
    const version = await api.post(`/assets/${live}/versions`, { version: '1.1.0', release_notes: `${script}\n${img}`, changes: { title: `${img} Live` } });
    assert.equal(version.status, 201, JSON.stringify(version.body));
    const bytes = new TextEncoder().encode('PK version two');
    const issued = await api.post(`/assets/${live}/versions/${version.body.id}/upload-url`, { filename: 'pack-2.zip', file_size: bytes.byteLength });
    assert.equal((await putSigned(issued.body.signed_url, bytes, 'application/zip')).status, 200);
    assert.equal((await api.post(`/assets/${live}/versions/${version.body.id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: bytes.byteLength })).status, 200);
    assert.equal((await api.post(`/assets/${live}/versions/${version.body.id}/submit`)).status, 200);

    const seller = await signedIn(server, server.seller.id);
    assert.equal((await seller.post('/dashboard/tokens', { name: `${img} ${script}`, scopes: 'tokens:read' })).status, 200);
    const profile = await seller.post('/dashboard/profile', { display_name: `${img}'` });
    assert.equal(profile.status, 303, profile.text);
    const mod = await signedIn(server, moderator.id);
    asText(await mod.send('GET', '/dashboard/review'), 'moderator queue (listings)', ['script']);
    asText(await mod.send('GET', `/dashboard/review/listings/${id}`), 'moderator listing review (title, description, tags)', ['script', 'img']);
    assert.equal((await mod.post(`/dashboard/review/listings/${id}/request-changes`, { reason: `${script} ${img}` })).status, 303);

    asText(await seller.send('GET', '/dashboard/listings'), 'seller /listings', ['script']);
    asText(await seller.send('GET', `/dashboard/listings/${id}`), 'seller listing (title, description, tags, the reason)', ['script', 'img']);
    asText(await seller.send('GET', `/dashboard/listings/${live}`), 'seller listing with a version', []);
    asText(await seller.send('GET', '/dashboard/tokens'), 'seller /tokens', ['script', 'img']);
    asText(await seller.send('GET', '/dashboard/profile'), 'seller /profile (display name)', ['img']);
    asText(await mod.send('GET', '/dashboard/review?kind=version'), 'moderator queue (versions)', []);
    asText(await mod.send('GET', `/dashboard/review/versions/${version.body.id}`), 'moderator version review (release notes, changes)', ['script', 'img']);
    const op = await signedIn(server, operator.id);
    asText(await op.send('GET', `/dashboard/accounts/${server.seller.id}`), 'operator account (token names)', ['script', 'img']);
    asText(await op.send('GET', '/dashboard/audit'), 'operator audit (the reason)', ['script', 'img']);

    for (const [bad, label] of [['a\u0000bcd', 'U+0000'], ['a\u202ebcd', 'U+202E']] as const) {
      for (const [field, body] of [['title', { title: bad, slug: 'bad-title' }], ['tags[0]', { title: 'Fine title', slug: 'bad-tag', tags: [bad] }]] as const) {
        const refused = await api.post('/assets', body);
        assert.equal(refused.status, 400, `${label} in ${field}`);
        assert.deepEqual(refused.body.details?.map((d: { path: string }) => d.path), [field], `${label}: ${JSON.stringify(refused.body)}`);
      }
      const name = await seller.post('/dashboard/tokens', { name: bad, scopes: 'tokens:read' });
      assert.equal(name.status, 400, `${label} in a token's name`);
      assert.match(name.text, /name/);
      const display = await seller.post('/dashboard/profile', { display_name: bad });
      assert.equal(display.status, 400, `${label} in a display name`);
      assert.match(display.text, /display_name|Display name/);
      const reason = await mod.post(`/dashboard/review/versions/${version.body.id}/request-changes`, { reason: bad });
      assert.equal(reason.status, 400, `${label} in a reason`);
      assert.match(reason.text, /reason/);
    }
  });

  test('an SVG as a listing’s image: refused at the PUT (its type) and at confirm-image (its bytes); a real image answers its type with nosniff', async () => {
    const api = as(server, server.seller.token);
    const { id } = await assetWithFile(server, server.seller.token, { title: 'Svg Pack' });
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    assert.equal((await api.post(`/assets/${id}/images/upload-url`, { filename: 'shot.svg' })).status, 400, 'an .svg name is refused');
    for (const type of ['image/svg+xml', 'image/png']) {
      const issued = await api.post(`/assets/${id}/images/upload-url`, { filename: 'shot.png' });
      const put = await fetch(issued.body.signed_url, { method: 'PUT', body: svg, headers: { 'content-type': type } });
      const confirmed = await api.post(`/assets/${id}/confirm-image`, { public_url: issued.body.public_url });
      assert.equal(confirmed.status, 400, `${type}: ${JSON.stringify(confirmed.body)}`);
      assert.equal(confirmed.body.details?.[0]?.path, 'public_url');
      if (type === 'image/svg+xml') assert.equal(put.status, 415, 'an SVG content type is refused at the PUT');
      else assert.match(confirmed.body.error, /not a WebP, PNG or JPEG image/, 'the sniffed bytes are refused at confirm');
      const served = await fetch(issued.body.public_url);
      assert.notEqual(served.headers.get('content-type'), 'image/svg+xml');
      assert.notEqual(served.status, 200, 'an image never confirmed is not served');
    }
    const image = await uploadImage(server, server.seller.token, id);
    assert.equal(image.status, 201);
    const seller = await signedIn(server, server.seller.id);
    const shown = /<img src="([^"]+)"/.exec((await seller.send('GET', `/dashboard/listings/${id}`)).text)?.[1];
    assert.ok(shown, 'the listing page shows the image');
    const served = await fetch(new URL(shown.replace(/&amp;/g, '&'), server.url));
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
  });
});
