/**
 * The moderators' and operators' pages (docs/dashboard.md, "Moderators", "Operators"), over HTTP
 * as a browser sends them, on memory storage: the queue shows what waits (seller, price, file size
 * and digest, the primary image), a decision on a page is the admin action REST's seller then sees,
 * with its reason, and an entry in the audit log; a version's review shows what it changes and its
 * approval makes the new file the one REST serves; roles are checked on the server (a seller is
 * refused the queue, a moderator the accounts); an operator sets roles and revokes a seller's token.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { dashboardServiceKey, signedIn } from '../../fixtures/dashboard.js';
import { as, assetWithFile, putSigned, uploadImage, type TestServer } from '../../fixtures/server.js';
import { startServerOn, stopStores } from '../../fixtures/stores.js';

after(stopStores);

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('the dashboard for moderators and operators', () => {
  let server: TestServer;
  let moderator: Awaited<ReturnType<TestServer['account']>>;
  let operator: Awaited<ReturnType<TestServer['account']>>;
  before(async () => {
    server = await startServerOn('memory', { serviceKey: dashboardServiceKey, dashboard: {} });
    moderator = await server.account({ username: 'mod-1', is_moderator: true, seller_status: 'none' });
    operator = await server.account({ username: 'op-1', is_operator: true, seller_status: 'none' });
  });
  after(() => server.close());

  test('a listing: in the queue with its seller, price, file and image; changes requested with a reason the seller reads; approved; each in the audit log', async () => {
    const seller = as(server, server.seller.token);
    const { id } = await assetWithFile(server, server.seller.token, { title: '<img src=x onerror=alert(1)> Castle “Pack”' });
    await uploadImage(server, server.seller.token, id);
    assert.equal((await seller.post(`/assets/${id}/submit`)).status, 200);

    const mod = await signedIn(server, moderator.id);
    const queue = await mod.send('GET', '/dashboard/review');
    assert.equal(queue.status, 200);
    assert.match(queue.text, /&lt;img src=x onerror=alert\(1\)&gt; Castle “Pack”/, 'the title as text');
    assert.doesNotMatch(queue.text, /<img src=x/);
    assert.match(queue.text, new RegExp(`<td>${(await seller.get('/me')).body.username}</td>`));
    assert.ok(queue.text.includes(sha(new TextEncoder().encode('PK\u0003\u0004 zip bytes'))), 'the file digest is shown (assetWithFile’s bytes)');
    assert.match(queue.text, /<img src="[^"]+" alt="" width="96"/, 'the primary image');
    assert.match((await mod.send('GET', '/dashboard/review?kind=version')).text, /Nothing waits for review/);

    const page = await mod.send('GET', `/dashboard/review/listings/${id}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /Approve and publish/);
    assert.match(page.text, /Approving publishes the listing now: a listing goes only from pending to published, and its time, if any, was the seller’s/, 'says a listing’s time is not the moderator’s');
    const empty = await mod.post(`/dashboard/review/listings/${id}/request-changes`, { reason: ' ' });
    assert.equal(empty.status, 400, 'a reason is needed');
    assert.match(empty.text, /reason/);
    const asked = await mod.post(`/dashboard/review/listings/${id}/request-changes`, { reason: 'Add a <b>preview</b> of the walls.' });
    assert.deepEqual([asked.status, asked.headers.get('location')], [303, `/dashboard/review/listings/${id}`]);
    const seen = (await seller.get(`/assets/${id}`)).body;
    assert.deepEqual([seen.status, seen.review?.reason], ['changes_requested', 'Add a <b>preview</b> of the walls.']);

    server.clock.advance(60_000);
    assert.equal((await seller.post(`/assets/${id}/submit`)).status, 200);
    assert.equal((await mod.post(`/dashboard/review/listings/${id}/approve`)).status, 303);
    assert.equal((await seller.get(`/assets/${id}`)).body.status, 'published');

    const op = await signedIn(server, operator.id);
    const audit = await op.send('GET', '/dashboard/audit');
    assert.equal(audit.status, 200);
    const rows = [...audit.text.matchAll(/<tr><td><time[^>]*>[^<]*<\/time><\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g)].map((m) => m.slice(1));
    assert.deepEqual(rows.slice(0, 2), [
      ['mod-1', 'approve', `listing ${id}`, ''],
      ['mod-1', 'request-changes', `listing ${id}`, 'Add a &lt;b&gt;preview&lt;/b&gt; of the walls.'],
    ]);
  });

  /** A published listing (REST, then the admin approve) with a version 1.1.0 of `bytes` submitted for review. */
  async function pendingVersion(title: string, bytes: Uint8Array) {
    const seller = as(server, server.seller.token);
    const { id } = await assetWithFile(server, server.seller.token, { title });
    assert.equal((await seller.post(`/assets/${id}/submit`)).status, 200);
    await server.marketplace.moderation.approve(id);
    const made = await seller.post(`/assets/${id}/versions`, { version: '1.1.0', release_notes: 'Fixes the gate', changes: { title: `${title} Deluxe` } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const issued = await seller.post(`/assets/${id}/versions/${made.body.id}/upload-url`, { filename: 'pack-2.zip', file_size: bytes.byteLength });
    assert.equal((await putSigned(issued.body.signed_url, bytes, 'application/zip')).status, 200);
    assert.equal((await seller.post(`/assets/${id}/versions/${made.body.id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: bytes.byteLength, sha256: sha(bytes) })).status, 200);
    assert.equal((await seller.post(`/assets/${id}/versions/${made.body.id}/submit`)).status, 200);
    return { id, made, seller };
  }

  test('a version: the live file stays served while it waits; the review shows what changes; approved, the new file is served', async () => {
    const bytes = new TextEncoder().encode('PK version two');
    const { id, made, seller } = await pendingVersion('Gate Pack', bytes);

    const mod = await signedIn(server, moderator.id);
    const queue = await mod.send('GET', '/dashboard/review?kind=version');
    assert.match(queue.text, /Gate Pack 1\.1\.0/);
    const review = await mod.send('GET', `/dashboard/review/versions/${made.body.id}`);
    assert.equal(review.status, 200);
    assert.match(review.text, /<td>title<\/td><td>Gate Pack<\/td><td>Gate Pack Deluxe<\/td>/);
    assert.ok(review.text.includes(sha(bytes)), 'the proposed file’s digest');
    assert.equal((await seller.get(`/assets/${id}`)).body.version, '1.0.0', 'the live listing while it waits');
    assert.equal((await mod.post(`/dashboard/review/versions/${made.body.id}/approve`)).status, 303);
    const live = (await seller.get(`/assets/${id}`)).body;
    assert.deepEqual([live.version, live.title, live.file?.sha256], ['1.1.0', 'Gate Pack Deluxe', sha(bytes)]);
  });

  test('a version approved at a time (UTC): scheduled with it and logged, the live file served until the release job at that time; a past or unreadable time refused naming release_at', async () => {
    const bytes = new TextEncoder().encode('PK version two, at a time');
    const { id, made, seller } = await pendingVersion('Bridge Pack', bytes);
    const liveSha = (await seller.get(`/assets/${id}`)).body.file.sha256;
    const mod = await signedIn(server, moderator.id);
    const review = await mod.send('GET', `/dashboard/review/versions/${made.body.id}`);
    assert.match(review.text, /<label>Live at, in UTC \(Coordinated Universal Time, now [^)]+\) <input type="datetime-local" name="release_at" required/, 'a labelled datetime-local stating its zone');
    assert.match(review.text, /Approve, live at this time/);

    const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16); // what a datetime-local sends
    for (const given of [minute(server.clock.now() - 60_000), 'next tuesday']) {
      const refused = await mod.post(`/dashboard/review/versions/${made.body.id}/approve`, { release_at: given });
      assert.equal(refused.status, 400, given);
      assert.match(refused.text, /release_at/, `${given}: the field is named`);
    }
    assert.equal((await seller.get(`/assets/${id}/versions/${made.body.id}`)).body.status, 'pending', 'refused, nothing changed');

    const at = minute(server.clock.now() + 90 * 60_000);
    const approved = await mod.post(`/dashboard/review/versions/${made.body.id}/approve`, { release_at: at });
    assert.deepEqual([approved.status, approved.headers.get('location')], [303, `/dashboard/review/versions/${made.body.id}`]);
    const version = (await seller.get(`/assets/${id}/versions/${made.body.id}`)).body;
    assert.deepEqual([version.status, version.release_at], ['scheduled', `${at}:00.000Z`], 'the time read as UTC');
    const waiting = (await seller.get(`/assets/${id}`)).body;
    assert.deepEqual([waiting.version, waiting.file.sha256], ['1.0.0', liveSha], 'the listing still serves the live file');
    assert.match((await mod.send('GET', `/dashboard/review/versions/${made.body.id}`)).text, new RegExp(`This version is scheduled: live at <time datetime="${at}:00.000Z">`));
    const op = await signedIn(server, operator.id);
    assert.match((await op.send('GET', '/dashboard/audit')).text, new RegExp(`<td>mod-1</td><td>approve-version</td><td>version ${made.body.id}</td><td>live at ${at}:00Z</td>`));

    const releaseDue = () => fetch(`${server.url}/api/admin/moderation/release-due`, { method: 'POST', headers: { authorization: `Bearer ${dashboardServiceKey}` } }).then((r) => r.json());
    server.clock.advance(60 * 60_000);
    assert.deepEqual((await releaseDue()).versions, [], 'not yet its time');
    server.clock.advance(30 * 60_000);
    assert.deepEqual((await releaseDue()).versions.map((v: { id: string }) => v.id), [made.body.id]);
    const live = (await seller.get(`/assets/${id}`)).body;
    assert.deepEqual([live.version, live.title, live.file.sha256], ['1.1.0', 'Bridge Pack Deluxe', sha(bytes)]);
  });

  test('roles are checked on the server: a seller is refused the queue, a moderator the accounts and the audit log', async () => {
    const seller = await signedIn(server, server.seller.id);
    for (const path of ['/dashboard/review', '/dashboard/accounts', '/dashboard/audit']) assert.equal((await seller.send('GET', path)).status, 403, path);
    assert.equal((await seller.post(`/dashboard/review/listings/${crypto.randomUUID()}/approve`)).status, 403, 'nor a decision');
    assert.doesNotMatch((await seller.send('GET', '/dashboard/')).text, /Review queue/, 'and is not shown the link');
    const mod = await signedIn(server, moderator.id);
    assert.equal((await mod.send('GET', `/dashboard/accounts/${server.seller.id}`)).status, 403, 'a moderator never sees a seller’s tokens');
    assert.equal((await mod.send('GET', '/dashboard/audit')).status, 403);
  });

  test('an operator sets roles (logged with the note), cannot take away its own, and revokes a seller’s token at once', async () => {
    const op = await signedIn(server, operator.id);
    const extra = await server.account({ username: 'helper-seller' });
    const list = await op.send('GET', '/dashboard/accounts');
    assert.match(list.text, /href="\/dashboard\/accounts\/helper-seller"/);
    const changed = await op.post('/dashboard/accounts/helper-seller', { seller_status: 'approved', is_moderator: 'true', note: 'Joins the review team' });
    assert.equal(changed.status, 303, changed.text);
    const seen = await fetch(`${server.url}/api/admin/accounts/helper-seller`, { headers: { authorization: `Bearer ${dashboardServiceKey}` } }).then((r) => r.json());
    assert.deepEqual([seen.is_moderator, seen.is_operator, seen.seller_status], [true, false, 'approved']);
    assert.match((await op.send('GET', '/dashboard/audit')).text, /<td>op-1<\/td><td>update-account<\/td><td>account helper-seller<\/td><td>Joins the review team<\/td>/);

    const self = await op.post('/dashboard/accounts/op-1', { seller_status: 'none', is_moderator: 'true' });
    assert.equal(self.status, 400);
    assert.match(self.text, /your own operator role/);

    assert.equal((await as(server, extra.token).get('/me')).status, 200);
    const page = await op.send('GET', '/dashboard/accounts/helper-seller');
    const revoke = /action="(\/dashboard\/accounts\/helper-seller\/tokens\/[^/]+\/revoke)"/.exec(page.text)?.[1];
    assert.ok(revoke, 'the token is listed with a revoke form');
    assert.equal((await op.post(revoke)).status, 303);
    assert.equal((await as(server, extra.token).get('/me')).status, 401, 'revoked on REST at once');
  });
});
