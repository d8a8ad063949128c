/**
 * Version approval across processes (issue 43; docs/moderation.md, "Versions": "Approval is one
 * swap"), through real `marketkit serve` processes, the admin surface and a webhook receiver:
 * two instances on one PostgreSQL database approving the same version at the same moment commit
 * one swap (the other answers 409 INVALID_STATUS, never 5xx) and one `asset.version_approved`;
 * and a server killed with SIGKILL a few milliseconds after an approval was sent leaves each
 * version either pending with the listing untouched or approved with the listing swapped, never
 * half of it, and after a restart every approved version's event arrives, one event per version
 * (a redelivery after a kill mid-delivery carries the same event id).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { keys, startCliServer, tempDir, type ServeInfo, type ServerProcess } from '../fixtures/cli.js';
import { startPostgres } from '../fixtures/postgres.js';
import { as, putSigned, uploadFile, validAsset } from '../fixtures/server.js';
import { startReceiver, type Receiver } from '../fixtures/webhook-receiver.js';
import { createEndpoint } from '../fixtures/webhooks.js';
import { needs } from '../fixtures/parts.js';

// The first test needs PostgreSQL (or says loudly why it did not run); the second runs on SQLite.
const pg = needs('postgresql');

const serviceKey = 'version-instances-service-key-0123456789abcdef';
const bytesOf = (text: string) => new TextEncoder().encode(text);
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const v1 = bytesOf('PK version one of the pack');
const v2 = bytesOf('PK version two of the pack, longer');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Listing {
  id: string;
  vid: string;
  /** The storage path of the file the listing went live with (version 1.0.0). */
  firstPath: string;
  /** The storage path of the version's file (1.1.0). */
  versionPath: string;
}

/** A POST to the admin surface with the service key: the status and the body, whatever they are. */
async function admin(info: ServeInfo, path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${info.url}/api/admin${path}`, { method: 'POST', headers: { authorization: `Bearer ${serviceKey}` } });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, body };
}

/** A listing published with v1 (1.0.0) and its version 1.1.0 with file v2, uploaded, confirmed by its SHA-256 and submitted: pending. */
async function pendingVersion(info: ServeInfo, token: string, title: string): Promise<Listing> {
  const client = as(info, token);
  const made = await client.post('/assets', validAsset({ title }));
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const id: string = made.body.id;
  const first = await uploadFile(info, token, id, v1);
  assert.equal((await client.post(`/assets/${id}/submit`)).status, 200);
  const published = await admin(info, `/assets/${id}/approve`);
  assert.deepEqual([published.status, published.body.status], [200, 'published'], JSON.stringify(published.body));
  const version = await client.post(`/assets/${id}/versions`, { version: '1.1.0', changes: { title: `${title} Deluxe` } });
  assert.equal(version.status, 201, JSON.stringify(version.body));
  const vid: string = version.body.id;
  const issued = await client.post(`/assets/${id}/versions/${vid}/upload-url`, { filename: 'pack-2.zip', file_size: v2.byteLength });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  assert.equal((await putSigned(issued.body.signed_url, v2, 'application/zip')).status, 200);
  const confirmed = await client.post(`/assets/${id}/versions/${vid}/confirm-file`, { storage_path: issued.body.storage_path, file_size: v2.byteLength, sha256: sha(v2) });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  const submitted = await client.post(`/assets/${id}/versions/${vid}/submit`);
  assert.deepEqual([submitted.status, submitted.body.status], [200, 'pending']);
  return { id, vid, firstPath: first.file.storage_path, versionPath: issued.body.storage_path };
}

/**
 * The listing and its versions as `info` serves them, checked to be one of the two whole states:
 * 'pending' (the listing as published, the version waiting, no other version) or 'approved' (the
 * listing carries the version's file, version string and title; its first publication superseded).
 */
async function wholeState(info: ServeInfo, token: string, l: Listing): Promise<'pending' | 'approved'> {
  const client = as(info, token);
  const listing = (await client.get(`/assets/${l.id}`)).body;
  const version = (await client.get(`/assets/${l.id}/versions/${l.vid}`)).body;
  const history = (await client.get(`/assets/${l.id}/versions`)).body.items.map((v: { status: string }) => v.status).sort();
  const seen = JSON.stringify({ listing: [listing.version, listing.file?.storage_path, listing.pending_version], version: version.status, history });
  if (version.status === 'pending') {
    assert.deepEqual([listing.version, listing.file.storage_path, listing.pending_version?.id, history], ['1.0.0', l.firstPath, l.vid, ['pending']], `a half state: ${seen}`);
    return 'pending';
  }
  assert.equal(version.status, 'approved', `a half state: ${seen}`);
  assert.deepEqual(
    [listing.version, listing.title.endsWith(' Deluxe'), listing.file.storage_path, listing.file.sha256, listing.pending_version ?? null, history],
    ['1.1.0', true, l.versionPath, sha(v2), null, ['approved', 'superseded']],
    `a half state: ${seen}`,
  );
  return 'approved';
}

/** The distinct event ids of `asset.version_approved` the receiver got, by version id. */
function approvedEvents(receiver: Receiver): Map<string, Set<string>> {
  const byVersion = new Map<string, Set<string>>();
  for (const request of receiver.received) {
    const event = JSON.parse(request.body) as { id: string; type: string; data: { version_id: string } };
    assert.equal(event.type, 'asset.version_approved', 'the endpoint subscribes to nothing else');
    assert.equal(request.headers['webhook-id'], event.id);
    const ids = byVersion.get(event.data.version_id) ?? new Set<string>();
    byVersion.set(event.data.version_id, ids.add(event.id));
  }
  return byVersion;
}

/** Waits until each of `versionIds` has an event (or `ms` passed), then a little more for any second event, and asserts exactly one each and none for another version. */
async function exactlyOneEventEach(receiver: Receiver, versionIds: string[], ms: number): Promise<Map<string, Set<string>>> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !versionIds.every((vid) => approvedEvents(receiver).has(vid))) await sleep(100);
  await sleep(1500);
  const got = approvedEvents(receiver);
  for (const vid of versionIds) assert.equal(got.get(vid)?.size ?? 0, 1, `version ${vid}: ${got.get(vid)?.size ?? 0} distinct asset.version_approved events, not 1`);
  assert.deepEqual([...got.keys()].sort(), [...versionIds].sort(), 'no event for a version nobody approved');
  return got;
}

pg.test('concurrent approvals of one version from two instances on one PostgreSQL database: one 200, the other 409 INVALID_STATUS, one swap, one event', async (t) => {
  const started = Date.now();
  const cluster = await startPostgres();
  t.after(() => cluster.stop());
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const env = { ...(await keys()), MARKETKIT_SERVICE_KEY: serviceKey };
  // One database, one fs blob directory: what docs/deploy.md asks of instances on one machine.
  const args = ['--database-url', await cluster.createDatabase(), '--blobs', 'fs', '--data-dir', tempDir(t), '--webhooks-allow-local', '--webhook-timeout', '1'];
  const a = await startCliServer(args, env);
  t.after(() => a.stop('SIGKILL'));
  const b = await startCliServer(args, env);
  t.after(() => b.stop('SIGKILL'));
  const token = a.info.dev_seller.token ?? b.info.dev_seller.token!;
  const endpoint = await createEndpoint(a.info, token, { url: `${receiver.url}/race`, event_types: ['asset.version_approved'] });

  const listings = await Promise.all(Array.from({ length: 5 }, (_, i) => pendingVersion(a.info, token, `Race Pack ${i}`)));
  for (const l of listings) {
    // Both requests leave together; each instance reads the version pending, one swap commits.
    const answers = await Promise.all([admin(a.info, `/versions/${l.vid}/approve`), admin(b.info, `/versions/${l.vid}/approve`)]);
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [200, 409], `version ${l.vid}: ${JSON.stringify(answers)}`);
    const winner = answers.find((answer) => answer.status === 200)!;
    const loser = answers.find((answer) => answer.status === 409)!;
    assert.deepEqual([winner.body.id, winner.body.status], [l.vid, 'approved']);
    assert.equal(loser.body.code, 'INVALID_STATUS', JSON.stringify(loser.body));
    for (const instance of [a, b]) assert.equal(await wholeState(instance.info, token, l), 'approved');
  }

  const vids = listings.map((l) => l.vid);
  await exactlyOneEventEach(receiver, vids, 15_000);
  assert.equal(receiver.received.length, 5, 'each event delivered once while both workers live');
  // The outbox itself: one event per version, whatever was delivered.
  const log = (await as(b.info, token).get(`/webhooks/${endpoint.id}/deliveries?limit=100`)).body.data as { event_id: string; event_type: string }[];
  assert.equal(new Set(log.map((d) => d.event_id)).size, 5);
  assert.ok(log.every((d) => d.event_type === 'asset.version_approved'));
  t.diagnostic(`took ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

test('SIGKILL a few milliseconds after an approval was sent: after a restart each version is wholly pending or wholly approved, and each approved version has exactly one event', async (t) => {
  const started = Date.now();
  const rounds = 5;
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const dir = tempDir(t);
  const env = { MARKETKIT_SERVICE_KEY: serviceKey };
  const args = ['--data-dir', dir, '--webhooks-allow-local', '--webhook-timeout', '1'];
  let server: ServerProcess = await startCliServer(args, env);
  t.after(() => server.stop('SIGKILL'));
  const token = server.info.dev_seller.token!;
  const port = new URL(server.info.url).port;
  await createEndpoint(server.info, token, { url: `${receiver.url}/crash`, event_types: ['asset.version_approved'] });
  const listings = await Promise.all(Array.from({ length: rounds }, (_, i) => pendingVersion(server.info, token, `Crash Pack ${i}`)));

  const outcomes: { delayMs: number; answer: number | string; after: 'pending' | 'approved' }[] = [];
  for (const [i, l] of listings.entries()) {
    // Spread over 0 to 15 ms, each at a random point of its slice: an approval commits within about 5 ms
    // of being sent on an idle machine, so the kills land before, during and after the commit.
    const delayMs = Math.round(((i + Math.random()) * 15) / rounds);
    const answer = admin(server.info, `/versions/${l.vid}/approve`).then((r) => r.status, () => 'no answer');
    await sleep(delayMs);
    await server.stop('SIGKILL');
    server = await startCliServer(['--port', port, ...args], env);
    const after = await wholeState(server.info, token, l);
    const status = await answer;
    // A 200 was sent after the commit: what it answered must have survived.
    if (status === 200) assert.equal(after, 'approved', `round ${i} answered 200, yet the version is pending after the restart`);
    outcomes.push({ delayMs, answer: status, after });
  }
  const pending = listings.filter((_, i) => outcomes[i]!.after === 'pending');
  for (const l of pending) {
    // Nothing happened: approving it now works.
    const again = await admin(server.info, `/versions/${l.vid}/approve`);
    assert.deepEqual([again.status, again.body.status], [200, 'approved'], JSON.stringify(again.body));
    assert.equal(await wholeState(server.info, token, l), 'approved');
  }
  const before = outcomes.filter((o) => o.after === 'pending').length;
  t.diagnostic(`rounds killed before the commit: ${before}, after it: ${rounds - before} (${outcomes.map((o) => `${o.delayMs} ms -> ${o.answer}/${o.after}`).join(', ')})`);

  // A delivery held by a killed worker waits out its lease (1 s timeout + 15 s) before the restarted process sends it.
  const got = await exactlyOneEventEach(receiver, listings.map((l) => l.vid), 25_000);
  const duplicates = receiver.received.length - got.size;
  t.diagnostic(`deliveries: ${receiver.received.length} for ${got.size} events (${duplicates} redelivered with the same event id); took ${((Date.now() - started) / 1000).toFixed(1)} s`);
});
