import assert from 'node:assert/strict';
import type { StoragePort, WebhookDeliveryRecord } from '../../../core/ports/storage.js';
import { accountRecord, assetRecord, at, endpointRecord, outboxEvent } from '../sample-records.js';
import { owner, type StorageTests, type WithPeer } from './fixtures.js';
import { attempt, claimAt, leaseMs, ms, subscribed } from './webhooks.js';

/** Webhooks, the delivery side: endpoints, claims with leases, attempts, disabling, redelivery, listing, purge. */
export function webhookDeliveryTests<S extends StoragePort>(withPeer: WithPeer<S>): StorageTests<S> {
  return {
    'endpoints: at most `max` per account, per account reads, newest first, changes, rotation and deletion with their deliveries': async (storage) => {
      const { account, endpoint } = await subscribed(storage, { created_at: at(1) });
      const second = endpointRecord(account.id, { created_at: at(2), previous_secret: 'whsec_b2xk', previous_secret_expires_at: at(3), failing_since: at(2) });
      assert.equal(await storage.insertWebhookEndpoint(second, 2), 'created');
      assert.equal(await storage.insertWebhookEndpoint(endpointRecord(account.id), 2), 'limit');
      const stranger = (await owner(storage)).id;
      assert.equal(await storage.insertWebhookEndpoint(endpointRecord(stranger), 2), 'created');
      assert.deepStrictEqual(await storage.listWebhookEndpoints(account.id), [second, endpoint]);
      assert.deepStrictEqual(await storage.getWebhookEndpoint(account.id, second.id), second);
      assert.equal(await storage.getWebhookEndpoint(stranger, second.id), null);
      const changed = await storage.updateWebhookEndpoint(account.id, endpoint.id, { url: 'https://other.example/x', event_types: ['asset.created'], description: null, updated_at: at(5) });
      assert.deepStrictEqual(changed, { ...endpoint, url: 'https://other.example/x', event_types: ['asset.created'], description: null, updated_at: at(5) });
      assert.deepStrictEqual(await storage.getWebhookEndpoint(account.id, endpoint.id), changed);
      assert.equal(await storage.updateWebhookEndpoint(stranger, endpoint.id, { description: 'x', updated_at: at(6) }), null);
      const rotated = await storage.rotateWebhookSecret(account.id, endpoint.id, 'whsec_bmV3', at(60 * 24), at(7));
      assert.deepStrictEqual(rotated, { ...changed, secret: 'whsec_bmV3', previous_secret: endpoint.secret, previous_secret_expires_at: at(60 * 24), updated_at: at(7) });
      const again = await storage.rotateWebhookSecret(account.id, endpoint.id, 'whsec_dGhpcmQ=', at(60 * 25), at(8));
      assert.equal(again?.previous_secret, 'whsec_bmV3', 'each rotation keeps the secret the one before it made');
      assert.equal(await storage.rotateWebhookSecret(stranger, endpoint.id, 'whsec_eA==', at(9), at(9)), null);
      // Deleting takes the deliveries with it.
      await storage.createAsset(assetRecord(account.id), [outboxEvent(account.id, crypto.randomUUID(), 'asset.created')]);
      const delivery = (await storage.listWebhookDeliveries({ accountId: account.id, endpointId: second.id, limit: 10, offset: 0 })).items[0]!;
      assert.equal(await storage.deleteWebhookEndpoint(stranger, second.id), false);
      assert.equal(await storage.deleteWebhookEndpoint(account.id, second.id), true);
      assert.equal(await storage.deleteWebhookEndpoint(account.id, second.id), false);
      assert.equal(await storage.getWebhookEndpoint(account.id, second.id), null);
      assert.equal(await storage.getWebhookDelivery(account.id, delivery.id), null);
      assert.deepStrictEqual(await storage.listWebhookEndpoints(account.id), [again]);
    },
    'a claimed delivery is not claimed again while its lease runs; after it, another worker takes it over and the first one’s finish changes nothing': async (storage) => {
      const { account } = await subscribed(storage);
      const asset = assetRecord(account.id);
      await storage.createAsset(asset, [outboxEvent(account.id, asset.id, 'asset.created', 1)]);
      // Not due before its time.
      assert.deepStrictEqual(await claimAt(storage, 0), []);
      const first = crypto.randomUUID();
      const [claimed] = await claimAt(storage, 1, first);
      assert.ok(claimed);
      assert.deepStrictEqual(await claimAt(storage, 1.5), [], 'leased');
      const second = crypto.randomUUID();
      const [takenOver] = await claimAt(storage, 1 + leaseMs / 60_000, second);
      assert.equal(takenOver?.delivery.id, claimed.delivery.id, 'the lease ran out: due again');
      assert.equal(await storage.finishWebhookAttempt(claimed.delivery.id, first, { result: 'succeeded', attempt: attempt(2, 200) }), false);
      assert.equal(await storage.finishWebhookAttempt(claimed.delivery.id, crypto.randomUUID(), { result: 'succeeded', attempt: attempt(2, 200) }), false);
      assert.equal((await storage.getWebhookDelivery(account.id, claimed.delivery.id))?.status, 'pending');
      assert.equal(await storage.finishWebhookAttempt(claimed.delivery.id, second, { result: 'succeeded', attempt: attempt(3, 204) }), true);
      const done = await storage.getWebhookDelivery(account.id, claimed.delivery.id);
      assert.deepStrictEqual(done, { ...claimed.delivery, status: 'succeeded', attempts: [attempt(3, 204)], next_attempt_ms: null, updated_at: at(3) });
      // Finished: never due again, and a second finish changes nothing.
      assert.deepStrictEqual(await claimAt(storage, 60 * 24 * 30), []);
      assert.equal(await storage.finishWebhookAttempt(claimed.delivery.id, second, { result: 'failed', attempt: attempt(4, 500), disableReason: 'x' }), false);
    },
    'claims take the earliest due first, at most `limit`, and of concurrent claims no two get one delivery': async (storage) => {
      const { account } = await subscribed(storage);
      // 30 events over 3 minutes, written out of time order.
      const times = Array.from({ length: 30 }, (_, i) => (i * 7) % 30);
      for (const [i, minute] of times.entries()) await storage.insertWebhookEvent(outboxEvent(account.id, `subject-${i}`, 'asset.updated', minute / 10));
      const earliest = await claimAt(storage, 3, undefined, 5);
      assert.deepStrictEqual(earliest.map((c) => c.event.created_at), [0, 1, 2, 3, 4].map((m) => at(m / 10)));
      await withPeer(storage, async (pick) => {
        const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => pick(i).claimWebhookDeliveries({ holder: `worker-${i}`, nowMs: ms(3), leaseMs, limit: 4 })));
        const ids = claims.flat().map((c) => c.delivery.id);
        assert.equal(new Set(ids).size, ids.length, 'no delivery claimed twice');
        assert.ok(ids.length <= 25);
        for (const claim of claims) assert.ok(claim.length <= 4);
        // What the concurrent claims skipped is still there for the next one.
        const rest = await claimAt(storage, 3);
        assert.equal(ids.length + rest.length, 25);
        assert.equal(new Set([...ids, ...rest.map((c) => c.delivery.id), ...earliest.map((c) => c.delivery.id)]).size, 30);
      });
    },
    'an attempt moves its delivery: retrying until due again, then succeeded or failed, the attempts kept in order': async (storage) => {
      const { account, endpoint } = await subscribed(storage);
      const [a, b] = [await storage.insertWebhookEvent(outboxEvent(account.id, 's1', 'asset.updated', 1)), await storage.insertWebhookEvent(outboxEvent(account.id, 's2', 'asset.updated', 1))];
      const holder = crypto.randomUUID();
      const claimed = await claimAt(storage, 1, holder);
      assert.equal(claimed.length, 2);
      const [one, two] = [a[0]!.id, b[0]!.id];
      assert.equal(await storage.finishWebhookAttempt(one, holder, { result: 'retry', attempt: attempt(1, 500), nextAttemptMs: ms(5) }), true);
      assert.equal(await storage.finishWebhookAttempt(two, holder, { result: 'retry', attempt: attempt(1, null, 'timeout'), nextAttemptMs: ms(9) }), true);
      const retrying = await storage.getWebhookDelivery(account.id, one);
      assert.deepStrictEqual(retrying, { ...a[0]!, status: 'retrying', attempts: [attempt(1, 500)], next_attempt_ms: ms(5), updated_at: at(1) });
      assert.equal((await storage.getWebhookEndpoint(account.id, endpoint.id))?.failing_since, at(1));
      assert.deepStrictEqual(await claimAt(storage, 4), [], 'not due yet');
      const again = await claimAt(storage, 5, holder);
      assert.deepStrictEqual(again.map((c) => c.delivery), [retrying]);
      assert.equal(await storage.finishWebhookAttempt(one, holder, { result: 'succeeded', attempt: attempt(5, 200) }), true);
      assert.deepStrictEqual((await storage.getWebhookDelivery(account.id, one))?.attempts, [attempt(1, 500), attempt(5, 200)]);
      assert.equal((await storage.getWebhookEndpoint(account.id, endpoint.id))?.failing_since, null, 'a success clears it');
      // A success since the other delivery's first attempt: its final failure leaves the endpoint enabled.
      assert.equal((await claimAt(storage, 9, holder)).length, 1);
      assert.equal(await storage.finishWebhookAttempt(two, holder, { result: 'failed', attempt: attempt(9, 503), disableReason: 'failing' }), true);
      const failed = await storage.getWebhookDelivery(account.id, two);
      assert.equal(failed?.status, 'failed');
      assert.equal(failed?.next_attempt_ms, null);
      assert.deepStrictEqual(failed?.attempts, [attempt(1, null, 'timeout'), attempt(9, 503)]);
      const kept = await storage.getWebhookEndpoint(account.id, endpoint.id);
      assert.equal(kept?.enabled, true);
      assert.equal(kept?.failing_since, at(9));
    },
    'a delivery that fails for good with no success since its first attempt disables its endpoint and fails its queued deliveries': async (storage) => {
      const { account, endpoint } = await subscribed(storage);
      const other = endpointRecord(account.id);
      await storage.insertWebhookEndpoint(other, 10);
      const [doomed] = (await storage.insertWebhookEvent(outboxEvent(account.id, 's1', 'asset.updated', 1), endpoint.id))!;
      const holder = crypto.randomUUID();
      await claimAt(storage, 1, holder);
      await storage.finishWebhookAttempt(doomed!.id, holder, { result: 'retry', attempt: attempt(1, 500), nextAttemptMs: ms(100) });
      // Two more queue behind it, one of them leased by a worker at the moment it is disabled.
      const queued = await storage.insertWebhookEvent(outboxEvent(account.id, 's2', 'asset.updated', 50));
      const leased = await storage.insertWebhookEvent(outboxEvent(account.id, 's3', 'asset.updated', 60), endpoint.id);
      const busy = crypto.randomUUID();
      assert.deepStrictEqual((await claimAt(storage, 60, busy)).map((c) => c.delivery.id).sort(), [...queued, ...leased].map((d) => d.id).sort());
      assert.equal(await storage.finishWebhookAttempt(queued.find((d) => d.endpoint_id === other.id)!.id, busy, { result: 'succeeded', attempt: attempt(61, 200) }), true);
      await claimAt(storage, 100, holder);
      assert.equal(await storage.finishWebhookAttempt(doomed!.id, holder, { result: 'failed', attempt: attempt(100, 500), disableReason: 'failed for days; last: HTTP 500' }), true);
      const disabled = await storage.getWebhookEndpoint(account.id, endpoint.id);
      assert.deepStrictEqual(disabled, { ...endpoint, enabled: false, disabled_reason: 'failed for days; last: HTTP 500', disabled_at: at(100), failing_since: at(1), updated_at: at(100) });
      for (const d of [...queued.filter((q) => q.endpoint_id === endpoint.id), ...leased]) {
        const now = await storage.getWebhookDelivery(account.id, d.id);
        assert.equal(now?.status, 'failed', d.id);
        assert.equal(now?.next_attempt_ms, null);
      }
      // The worker that held one finds it failed: its finish changes nothing.
      assert.equal(await storage.finishWebhookAttempt(leased[0]!.id, busy, { result: 'succeeded', attempt: attempt(101, 200) }), false);
      assert.equal((await storage.getWebhookEndpoint(account.id, other.id))?.enabled, true, 'the other endpoint is untouched');
      // A disabled endpoint gets no new events; enabled again, it does, and failing_since starts over.
      const none = await storage.insertWebhookEvent(outboxEvent(account.id, 's4', 'asset.updated', 102));
      assert.deepStrictEqual(none.map((d) => d.endpoint_id), [other.id]);
      const enabled = await storage.updateWebhookEndpoint(account.id, endpoint.id, { enabled: true, disabled_reason: null, disabled_at: null, updated_at: at(103) });
      assert.deepStrictEqual(enabled, { ...endpoint, failing_since: null, updated_at: at(103) });
      assert.equal((await storage.insertWebhookEvent(outboxEvent(account.id, 's5', 'asset.updated', 104))).length, 2);
    },
    "disabling an endpoint by hand fails its queued deliveries, and a worker's finish of one then changes nothing": async (storage) => {
      const { account, endpoint } = await subscribed(storage);
      const [delivery] = await storage.insertWebhookEvent(outboxEvent(account.id, 's1', 'asset.updated', 1));
      const holder = crypto.randomUUID();
      await claimAt(storage, 1, holder);
      const off = await storage.updateWebhookEndpoint(account.id, endpoint.id, { enabled: false, disabled_reason: 'disabled by the seller', disabled_at: at(2), updated_at: at(2) });
      assert.equal(off?.enabled, false);
      assert.equal((await storage.getWebhookDelivery(account.id, delivery!.id))?.status, 'failed');
      assert.equal(await storage.finishWebhookAttempt(delivery!.id, holder, { result: 'retry', attempt: attempt(3, 500), nextAttemptMs: ms(5) }), false);
      assert.deepStrictEqual((await storage.getWebhookDelivery(account.id, delivery!.id))?.attempts, []);
      assert.deepStrictEqual(await claimAt(storage, 60 * 24), []);
    },
    'redelivery queues the event again as a new delivery to the same endpoint, unless that endpoint is disabled': async (storage) => {
      const { account, endpoint } = await subscribed(storage);
      const [original] = await storage.insertWebhookEvent(outboxEvent(account.id, 's1', 'asset.updated', 1));
      const holder = crypto.randomUUID();
      await claimAt(storage, 1, holder);
      await storage.finishWebhookAttempt(original!.id, holder, { result: 'succeeded', attempt: attempt(1, 200) });
      const newId = crypto.randomUUID();
      const result = await storage.redeliverWebhook(account.id, original!.id, newId, ms(10), at(10));
      assert.deepStrictEqual(result, {
        outcome: 'queued',
        delivery: { ...original!, id: newId, status: 'pending', attempts: [], next_attempt_ms: ms(10), redelivery_of: original!.id, created_at: at(10), updated_at: at(10) },
      });
      const [claimed] = await claimAt(storage, 10);
      assert.equal(claimed?.delivery.id, newId);
      assert.equal(claimed?.event.id, original!.event_id);
      assert.deepStrictEqual(await storage.redeliverWebhook((await owner(storage)).id, original!.id, crypto.randomUUID(), ms(11), at(11)), { outcome: 'missing' });
      assert.deepStrictEqual(await storage.redeliverWebhook(account.id, crypto.randomUUID(), crypto.randomUUID(), ms(11), at(11)), { outcome: 'missing' });
      await storage.updateWebhookEndpoint(account.id, endpoint.id, { enabled: false, disabled_reason: 'off', disabled_at: at(12), updated_at: at(12) });
      assert.deepStrictEqual(await storage.redeliverWebhook(account.id, original!.id, crypto.randomUUID(), ms(13), at(13)), { outcome: 'disabled' });
    },
    'deliveries are listed newest first, per endpoint or per account, by status, a page at a time with the total': async (storage) => {
      const { account, endpoint } = await subscribed(storage);
      const other = endpointRecord(account.id);
      await storage.insertWebhookEndpoint(other, 10);
      const made: WebhookDeliveryRecord[] = [];
      for (let i = 0; i < 5; i++) made.push(...(await storage.insertWebhookEvent(outboxEvent(account.id, `s${i}`, 'asset.updated', i + 1))));
      const holder = crypto.randomUUID();
      await claimAt(storage, 1, holder, 2);
      const mine = made.filter((d) => d.endpoint_id === endpoint.id);
      await storage.finishWebhookAttempt(mine[0]!.id, holder, { result: 'retry', attempt: attempt(1, 410), nextAttemptMs: ms(30) });
      const newestFirst = (list: WebhookDeliveryRecord[]) =>
        [...list].sort((x, y) => (x.created_at !== y.created_at ? (x.created_at < y.created_at ? 1 : -1) : x.event_sequence !== y.event_sequence ? y.event_sequence - x.event_sequence : x.id < y.id ? 1 : -1));
      const page = await storage.listWebhookDeliveries({ accountId: account.id, endpointId: endpoint.id, limit: 2, offset: 1 });
      assert.equal(page.total, 5);
      const fresh = async (list: WebhookDeliveryRecord[]) => Promise.all(list.map(async (d) => (await storage.getWebhookDelivery(account.id, d.id))!));
      assert.deepStrictEqual(page.items, (await fresh(newestFirst(mine))).slice(1, 3));
      const all = await storage.listWebhookDeliveries({ accountId: account.id, limit: 100, offset: 0 });
      assert.equal(all.total, 10);
      assert.deepStrictEqual(all.items.map((d) => d.id), newestFirst(made).map((d) => d.id));
      const failed = await storage.listWebhookDeliveries({ accountId: account.id, statuses: ['failed', 'retrying'], limit: 100, offset: 0 });
      assert.deepStrictEqual([failed.total, failed.items.map((d) => d.id)], [1, [mine[0]!.id]]);
      const pending = await storage.listWebhookDeliveries({ accountId: account.id, endpointId: other.id, statuses: ['pending'], limit: 100, offset: 0 });
      assert.equal(pending.total, 5);
      assert.deepStrictEqual(await storage.listWebhookDeliveries({ accountId: (await owner(storage)).id, limit: 10, offset: 0 }), { items: [], total: 0 });
      assert.equal(await storage.getWebhookDelivery((await owner(storage)).id, mine[0]!.id), null);
    },
    'purge removes events older than the cutoff whose deliveries are all finished, with them, at most `limit`': async (storage) => {
      const { account } = await subscribed(storage);
      const holder = crypto.randomUUID();
      const delivered: WebhookDeliveryRecord[] = [];
      for (const minute of [1, 2, 3]) delivered.push(...(await storage.insertWebhookEvent(outboxEvent(account.id, `s${minute}`, 'asset.updated', minute))));
      const [waiting] = await storage.insertWebhookEvent(outboxEvent(account.id, 's4', 'asset.updated', 4));
      // An event no endpoint got is purged too.
      await storage.insertWebhookEvent(outboxEvent((await owner(storage)).id, 's5', 'asset.updated', 5));
      await claimAt(storage, 3, holder);
      for (const d of delivered) await storage.finishWebhookAttempt(d.id, holder, { result: 'succeeded', attempt: attempt(3, 200) });
      assert.equal(await storage.purgeWebhookEvents(at(1), 10), 0, 'nothing older than the cutoff');
      assert.equal(await storage.purgeWebhookEvents(at(10), 2), 2);
      assert.equal(await storage.purgeWebhookEvents(at(10), 10), 2);
      assert.equal(await storage.purgeWebhookEvents(at(10), 10), 0, 'the waiting one stays');
      for (const d of delivered) assert.equal(await storage.getWebhookDelivery(account.id, d.id), null);
      assert.equal((await storage.getWebhookDelivery(account.id, waiting!.id))?.status, 'pending');
      assert.deepStrictEqual((await claimAt(storage, 10)).map((c) => [c.delivery.id, c.event.subject_id]), [[waiting!.id, 's4']], 'its event is still there to send');
    },
    'webhook writes of different accounts do not mix': async (storage) => {
      const [one, two] = [accountRecord(), accountRecord()];
      for (const a of [one, two]) await storage.insertAccount(a);
      const mine = endpointRecord(one.id);
      await storage.insertWebhookEndpoint(mine, 1);
      assert.equal(await storage.insertWebhookEndpoint(endpointRecord(two.id), 1), 'created', 'the limit is per account');
      assert.deepStrictEqual(await storage.listWebhookEndpoints(two.id).then((l) => l.map((e) => e.account_id)), [two.id]);
      assert.equal(await storage.deleteWebhookEndpoint(two.id, mine.id), false);
    },
  };
}
