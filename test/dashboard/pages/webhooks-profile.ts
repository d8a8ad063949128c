/**
 * The seller's webhook and profile pages (docs/dashboard.md, "Webhooks" and "Profile"), over HTTP
 * as a browser sends them, on memory storage with a loopback receiver: an endpoint made on the page
 * is what REST lists, its secret shown once; a delivery shows in the log and redeliver makes another
 * attempt; enable, disable, edit, a new secret and delete are what REST sees; a profile saved on the
 * page is what GET /api/v1/me answers, a bad website refused on the form naming the field; another
 * seller's endpoint is a 404; hostile text is text.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { nodeWebhookSender } from '../../../bindings/node/index.js';
import { socialKeys } from '../../../core/schemas/profile.js';
import { dashboardServiceKey, signedIn } from '../../fixtures/dashboard.js';
import { as, type TestServer } from '../../fixtures/server.js';
import { startServerOn, stopStores } from '../../fixtures/stores.js';
import { startReceiver, type Receiver } from '../../fixtures/webhook-receiver.js';

const local = { allowHttp: true, allowPrivateAddresses: true };
let server: TestServer;
let receiver: Receiver;
before(async () => {
  server = await startServerOn('memory', { serviceKey: dashboardServiceKey, dashboard: {}, webhooks: { ...local, sender: nodeWebhookSender(local), timeoutMs: 400 } });
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await server.close();
  await stopStores();
});

/** Sends every delivery due now. */
async function drain(): Promise<void> {
  while ((await server.marketplace.webhooks.deliverDue()).attempted > 0);
}

const count = (text: string, part: string) => text.split(part).length - 1;
const secretOn = (page: string) => /value="(whsec_[^"]+)"/.exec(page)?.[1];

describe('dashboard webhook pages', () => {
  test('an endpoint made on the page is what REST lists; its secret is shown once; the log shows deliveries and redeliver sends again', async () => {
    const api = as(server, server.seller.token);
    const b = await signedIn(server, server.seller.id);
    const empty = await b.send('GET', '/dashboard/webhooks');
    assert.equal(empty.status, 200);
    assert.match(empty.text, /No endpoints yet/);
    assert.match(empty.text, /<input type="checkbox" name="event_types" value="asset.created">/);
    assert.match(empty.text, /<a href="\/dashboard\/webhooks">Webhooks<\/a>/, 'in the nav');

    const url = `${receiver.url}/hooks/marketkit`;
    const made = await b.post('/dashboard/webhooks', { url, description: 'Main <b>"hook"</b>', event_types: ['asset.created', 'webhook.test'] });
    assert.equal(made.status, 200, made.text);
    assert.match(made.text, /shown once/);
    assert.match(made.text, /data-copy="new-secret-value"/);
    const secret = secretOn(made.text)!;
    assert.ok(secret, 'the secret is on the page');
    assert.equal(count(made.text, secret), 1, 'once on the page');
    const listed = (await api.get('/webhooks')).body.data as { id: string; url: string; event_types: string[]; description: string }[];
    assert.equal(listed.length, 1);
    assert.deepEqual([listed[0]!.url, listed[0]!.event_types, listed[0]!.description], [url, ['asset.created', 'webhook.test'], 'Main <b>"hook"</b>']);
    const id = listed[0]!.id;
    const list = (await b.send('GET', '/dashboard/webhooks')).text;
    assert.ok(list.includes(`<a href="/dashboard/webhooks/${id}"><bdi>${url}</bdi></a>`));
    assert.ok(list.includes('Main &lt;b&gt;&quot;hook&quot;&lt;/b&gt;') && !list.includes('<b>"hook"'), 'the description as text');
    assert.equal(count(list, secret), 0, 'not on the list afterwards');
    assert.equal(count((await b.send('GET', `/dashboard/webhooks/${id}`)).text, secret), 0, 'nor on its page');

    // A listing made emits asset.created: delivered, and shown in the log.
    assert.equal((await api.post('/assets', { title: 'Forest pack', slug: 'forest-pack' })).status, 201);
    await drain();
    assert.equal(receiver.received.length, 1);
    let detail = (await b.send('GET', `/dashboard/webhooks/${id}`)).text;
    assert.match(detail, /<td><code>asset.created<\/code><\/td><td>Succeeded<\/td><td>1<\/td><td>HTTP 200 <small>/);
    const redeliver = /action="(\/dashboard\/webhooks\/[^"]+\/deliveries\/[0-9a-f-]{36}\/redeliver)"/.exec(detail)![1]!;
    const again = await b.post(redeliver);
    assert.equal(again.status, 303);
    assert.equal(again.headers.get('location'), `/dashboard/webhooks/${id}?done=redelivered`);
    await drain();
    assert.equal(receiver.received.length, 2, 'another attempt');
    assert.equal(receiver.received[1]!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id'], 'of the same event');
    const deliveries = (await api.get(`/webhooks/${id}/deliveries`)).body.data as { redelivery_of: string | null; status: string }[];
    // Made at the same instant of the test's clock: in either order.
    assert.deepEqual(deliveries.map((d) => `${d.status} ${d.redelivery_of !== null ? 'redelivery' : 'first'}`).sort(), ['succeeded first', 'succeeded redelivery']);
    detail = (await b.send('GET', `/dashboard/webhooks/${id}?done=redelivered`)).text;
    assert.match(detail, /<p role="status">Queued again/);
    assert.match(detail, /2 deliveries, newest first/);
    assert.match(detail, /<code>asset.created<\/code> <small>\(redelivery\)<\/small>/);

    // A test event; disable (redeliver refused on the page, 409), enable; edit; a new secret, once.
    assert.equal((await b.post(`/dashboard/webhooks/${id}/test`)).status, 303);
    await drain();
    assert.equal(receiver.received.length, 3);
    assert.equal((await b.post(`/dashboard/webhooks/${id}/disable`)).status, 303);
    assert.equal((await api.get(`/webhooks/${id}`)).body.enabled, false);
    const refused = await b.post(redeliver);
    assert.equal(refused.status, 409);
    assert.match(refused.text, /<p role="alert">The webhook endpoint is disabled/);
    assert.equal((await b.post(`/dashboard/webhooks/${id}/enable`)).status, 303);
    assert.equal((await api.get(`/webhooks/${id}`)).body.enabled, true);
    const edited = await b.post(`/dashboard/webhooks/${id}`, { url, description: '', event_types: ['*'] });
    assert.equal(edited.headers.get('location'), `/dashboard/webhooks/${id}?done=saved`);
    assert.deepEqual(((await api.get(`/webhooks/${id}`)).body as { description: null; event_types: string[] }).event_types, ['*']);
    assert.equal((await api.get(`/webhooks/${id}`)).body.description, null, 'emptied: null');
    const rotated = await b.post(`/dashboard/webhooks/${id}/rotate-secret`);
    const newSecret = secretOn(rotated.text)!;
    assert.ok(newSecret && newSecret !== secret && count(rotated.text, newSecret) === 1);

    // The log pages by offset, as the operation does.
    for (let i = 0; i < 25; i++) assert.equal((await api.post(`/webhooks/${id}/test`)).status, 202);
    const first = (await b.send('GET', `/dashboard/webhooks/${id}`)).text;
    assert.equal(count(first, '/redeliver"'), 25);
    const next = /<a href="([^"]+)" rel="next">/.exec(first)![1]!;
    const second = (await b.send('GET', next)).text;
    assert.equal(count(second, '/redeliver"'), 28 - 25);
    assert.match(second, /rel="prev">Previous/);

    // A refusal is the form again, naming the field, with what was typed.
    const bad = await b.post('/dashboard/webhooks', { url: 'ftp://example.com/"x"', event_types: ['asset.created'] });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /<p role="alert">url /);
    assert.ok(bad.text.includes('value="ftp://example.com/&quot;x&quot;"'));

    // Delete (after the script's confirmation): gone from REST.
    assert.match(detail, /action="\/dashboard\/webhooks\/[^"]+\/delete" data-confirm=/);
    assert.equal((await b.post(`/dashboard/webhooks/${id}/delete`)).headers.get('location'), '/dashboard/webhooks');
    assert.deepEqual((await api.get('/webhooks')).body.data, []);
  });

  test("another seller's endpoint is a 404 for its page and every action, without its data", async () => {
    const mine = (await as(server, server.seller.token).post('/webhooks', { url: `${receiver.url}/secret-path`, event_types: ['*'] })).body as { id: string };
    const other = await signedIn(server, server.other.id);
    assert.doesNotMatch((await other.send('GET', '/dashboard/webhooks')).text, /secret-path/);
    for (const [method, path] of [
      ['GET', `/dashboard/webhooks/${mine.id}`],
      ['POST', `/dashboard/webhooks/${mine.id}`],
      ['POST', `/dashboard/webhooks/${mine.id}/disable`],
      ['POST', `/dashboard/webhooks/${mine.id}/test`],
      ['POST', `/dashboard/webhooks/${mine.id}/rotate-secret`],
      ['POST', `/dashboard/webhooks/${mine.id}/delete`],
      ['POST', `/dashboard/webhooks/${mine.id}/deliveries/${mine.id}/redeliver`],
    ] as const) {
      const res = method === 'GET' ? await other.send('GET', path) : await other.post(path, { url: 'https://example.com/x', event_types: ['*'] });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.doesNotMatch(res.text, /secret-path/);
    }
    assert.equal((await as(server, server.seller.token).get(`/webhooks/${mine.id}`)).body.enabled, true, 'untouched');
    assert.equal((await as(server, server.seller.token).delete(`/webhooks/${mine.id}`)).status, 200);
  });
});

/** The profile form as a browser sends it: every field, empty unless given. */
const profileForm = (values: Record<string, string> = {}) => {
  const form: Record<string, string> = Object.fromEntries(['display_name', 'bio', 'website', 'country', ...socialKeys.map((k) => `socials.${k}`), 'hire.rate', 'hire.contact'].map((n) => [n, '']));
  return { ...form, ...values };
};

describe('dashboard profile page', () => {
  test('a profile saved on the page is what GET /me answers; only what changed is sent; a bad website is refused on the form, naming it', async () => {
    const account = await server.account();
    const api = as(server, account.token);
    const b = await signedIn(server, account.id);
    const shown = await b.send('GET', '/dashboard/profile');
    assert.equal(shown.status, 200);
    assert.match(shown.text, /<a href="\/dashboard\/profile">Profile<\/a>/);
    const values = { display_name: 'Castle Works', bio: 'Line one\r\nLine two', website: 'https://castle.example/', country: 'de', 'socials.github': 'castle', 'hire.available': 'on', 'hire.rate': '50 an hour' };
    const saved = await b.post('/dashboard/profile', profileForm(values));
    assert.equal(saved.headers.get('location'), '/dashboard/profile?done=saved', saved.text);
    const me = (await api.get('/me')).body;
    assert.deepEqual([me.display_name, me.bio, me.website, me.country, me.socials.github, me.socials.twitter, me.hire], ['Castle Works', 'Line one\nLine two', 'https://castle.example/', 'DE', 'castle', null, { available: true, rate: '50 an hour', contact: null }]);
    const page = (await b.send('GET', '/dashboard/profile?done=saved')).text;
    assert.match(page, /<p role="status">Profile saved.<\/p>/);
    assert.match(page, /name="display_name" type="text" maxlength="80" size="50" value="Castle Works"/);
    assert.equal((await b.post('/dashboard/profile', profileForm({ ...values, country: 'DE' }))).headers.get('location'), '/dashboard/profile?done=unchanged');

    const cleared = await b.post('/dashboard/profile', profileForm({ ...values, website: '', 'hire.available': '' }));
    assert.equal(cleared.status, 303);
    const after = (await api.get('/me')).body;
    assert.deepEqual([after.website, after.hire.available, after.display_name], [null, false, 'Castle Works'], 'emptied: null; unticked: false; the rest kept');

    const bad = await b.post('/dashboard/profile', profileForm({ ...values, display_name: 'Renamed', website: 'javascript:alert(1)' }));
    assert.equal(bad.status, 400);
    assert.match(bad.text, /<p role="alert">website [^<]+<\/p>/);
    assert.ok(bad.text.includes('value="javascript:alert(1)"') && bad.text.includes('value="Renamed"'), 'what was typed, shown again');
    assert.equal((await api.get('/me')).body.display_name, 'Castle Works', 'nothing saved');
  });

  test('hostile text (markup, quotes, a bidi override) renders as text', async () => {
    const account = await server.account();
    const b = await signedIn(server, account.id);
    const hostile = `<script>alert("x")</script> & 'q'`;
    assert.equal((await b.post('/dashboard/profile', profileForm({ display_name: hostile, bio: '<img src=x onerror=alert(1)>' }))).status, 303);
    const page = (await b.send('GET', '/dashboard/profile')).text;
    assert.ok(page.includes('value="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;"'));
    assert.ok(page.includes('&lt;img src=x onerror=alert(1)&gt;</textarea>'));
    assert.doesNotMatch(page, /<script>alert|<img src=x/);
    const bidi = await b.post('/dashboard/profile', profileForm({ display_name: 'evil\u202Etxt.exe' }));
    assert.equal(bidi.status, 400, 'the operation refuses a bidirectional override');
    assert.match(bidi.text, /<p role="alert">display_name /);
    assert.ok(bidi.text.includes('value="evil\u202Etxt.exe"'), 'shown again as an attribute value, never as markup');
    assert.equal((await as(server, account.token).get('/me')).body.display_name, hostile);
  });
});
