import assert from 'node:assert/strict';
import type { ClaimedDelivery, OutboxEvent, StoragePort, WebhookAttempt, WebhookEndpointRecord } from '../../../core/ports/storage.js';
import { countOf } from '../suite.js';
import { assetRecord, at, endpointRecord, imageInput, outboxEvent, tokenRecord } from '../sample-records.js';
import { owner, storedAsset, type StorageTests, type WithPeer } from './fixtures.js';

// Every time here is chosen by the test, never read from a clock; `at(m)` is m minutes after the start.
export const ms = (minutes: number) => Date.parse(at(minutes));
export const leaseMs = 60_000;

/** A worker's claim at `minutes`, by a fresh holder unless one is given. */
export const claimAt = (storage: StoragePort, minutes: number, holder: string = crypto.randomUUID(), limit = 100) =>
  storage.claimWebhookDeliveries({ holder, nowMs: ms(minutes), leaseMs, limit });

export const attempt = (minutes: number, status_code: number | null, error: string | null = null): WebhookAttempt => ({ at: at(minutes), status_code, error, latency_ms: 42 });

/** An account with one endpoint subscribed to every type. */
export async function subscribed(storage: StoragePort, overrides: Partial<WebhookEndpointRecord> = {}) {
  const account = await owner(storage);
  const endpoint = endpointRecord(account.id, overrides);
  assert.equal(await storage.insertWebhookEndpoint(endpoint, 10), 'created');
  return { account, endpoint };
}

/** The events of the claimed deliveries, in the order claimed. */
export const eventsOf = (claimed: ClaimedDelivery[]) => claimed.map((c) => c.event);

/** Webhooks: the outbox written with each change or not at all, endpoints, claims with leases, attempts, disabling, redelivery, purge. */
export function webhookTests<S extends StoragePort>(withPeer: WithPeer<S>): StorageTests<S> {
  return {
    'every change that takes events writes each with a delivery to a subscribed endpoint, in the order given, with a growing sequence and its data and traceparent as written': async (storage) => {
      const { account, endpoint } = await subscribed(storage);
      const asset = assetRecord(account.id);
      const token = tokenRecord(account.id);
      await storage.insertToken(token);
      const events: OutboxEvent[] = [];
      // Every other event with the traceparent of the request that caused it (the longest one kept, for one).
      const traceparents = ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', null, `01-${'a'.repeat(32)}-${'b'.repeat(16)}-01-${'c'.repeat(72)}`, null];
      const event = (...types: string[]) => types.map((type) => {
        const traceparent = traceparents[events.length % traceparents.length]!;
        const made = outboxEvent(account.id, type === 'token.revoked' ? token.id : asset.id, type, events.length + 1, { traceparent });
        events.push(made);
        return made;
      });
      assert.equal((await storage.createAsset(asset, event('asset.created'))).outcome, 'created');
      assert.equal((await storage.updateAsset(asset.id, 1, { title: 'Changed', updated_at: at(2) }, event('asset.updated', 'asset.submitted'))).outcome, 'updated');
      const image = imageInput(asset.id);
      assert.equal((await storage.addImage(image, 10, event('asset.image_confirmed'))).outcome, 'added');
      assert.equal((await storage.arrangeImages(asset.id, [image.id], event('asset.images_arranged'))).outcome, 'arranged');
      assert.equal((await storage.revokeToken(account.id, token.id, at(4), event('token.revoked')))?.revoked_at, at(4));
      assert.equal((await storage.deleteAsset(asset.id, 2, event('asset.deleted'))).outcome, 'deleted');
      const claimed = await claimAt(storage, 10);
      const stored = eventsOf(claimed);
      assert.deepStrictEqual(
        stored.map(({ sequence: _sequence, ...rest }) => rest),
        events,
        'each event as written, in the order written',
      );
      for (let i = 1; i < stored.length; i++) assert.ok(stored[i]!.sequence > stored[i - 1]!.sequence, 'sequences grow');
      for (const c of claimed) {
        assert.deepStrictEqual(c.endpoint, endpoint);
        assert.equal(c.delivery.endpoint_id, endpoint.id);
        assert.equal(c.delivery.account_id, account.id);
        assert.equal(c.delivery.event_id, c.event.id);
        assert.equal(c.delivery.event_type, c.event.type);
        assert.equal(c.delivery.event_sequence, c.event.sequence);
        assert.equal(c.delivery.status, 'pending');
        assert.deepStrictEqual(c.delivery.attempts, []);
        assert.equal(c.delivery.next_attempt_ms, Date.parse(c.event.created_at));
        assert.equal(c.delivery.redelivery_of, null);
        assert.equal(c.delivery.created_at, c.event.created_at);
        assert.match(c.delivery.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      }
      assert.equal(new Set(claimed.map((c) => c.delivery.id)).size, claimed.length);
    },
    'a change that is refused writes no event': async (storage) => {
      const { account } = await subscribed(storage);
      const asset = await storedAsset(storage, { owner_id: account.id });
      const other = await storedAsset(storage);
      const token = tokenRecord(account.id, { revoked_at: at(1) });
      await storage.insertToken(token);
      const event = () => [outboxEvent(account.id, asset.id, 'asset.updated'), outboxEvent(account.id, asset.id, 'asset.published')];
      assert.equal((await storage.createAsset(assetRecord(account.id, { slug: asset.slug }), event())).outcome, 'slug_taken');
      assert.equal((await storage.updateAsset(asset.id, 7, { title: 'Stale', updated_at: at(2) }, event())).outcome, 'stale');
      assert.equal((await storage.updateAsset(crypto.randomUUID(), 1, { title: 'Gone', updated_at: at(2) }, event())).outcome, 'missing');
      assert.equal((await storage.updateAsset(asset.id, 1, { slug: other.slug, updated_at: at(2) }, event())).outcome, 'slug_taken');
      assert.equal((await storage.deleteAsset(asset.id, 7, event())).outcome, 'stale');
      assert.equal((await storage.deleteAsset(crypto.randomUUID(), 1, event())).outcome, 'missing');
      assert.equal((await storage.addImage(imageInput(crypto.randomUUID()), 10, event())).outcome, 'missing');
      const image = imageInput(asset.id);
      assert.equal((await storage.addImage(image, 10)).outcome, 'added');
      assert.equal((await storage.addImage(image, 10, event())).outcome, 'exists');
      assert.equal((await storage.addImage(imageInput(asset.id), 1, event())).outcome, 'limit');
      assert.equal((await storage.arrangeImages(asset.id, [image.id, image.id], event())).outcome, 'mismatch');
      assert.equal((await storage.arrangeImages(crypto.randomUUID(), [image.id], event())).outcome, 'missing');
      // Already revoked (it keeps its first revocation), and another account's.
      assert.equal((await storage.revokeToken(account.id, token.id, at(3), event()))?.revoked_at, at(1));
      assert.equal(await storage.revokeToken(other.owner_id, token.id, at(3), event()), null);
      assert.deepStrictEqual(await claimAt(storage, 10), []);
    },
    'an event that cannot be written undoes its change and the events before it: the call fails and nothing changed': async (storage) => {
      const { account } = await subscribed(storage);
      const first = outboxEvent(account.id, crypto.randomUUID(), 'asset.created');
      const kept = assetRecord(account.id);
      assert.equal((await storage.createAsset(kept, [first])).outcome, 'created');
      // A fresh event, then the same event id again: the store refuses the second, so the change and the first go with it.
      const taken = (subject: string) => [outboxEvent(account.id, subject), { ...outboxEvent(account.id, subject), id: first.id }];
      const asset = assetRecord(account.id);
      await assert.rejects(storage.createAsset(asset, taken(asset.id)));
      assert.equal(await storage.getAsset(asset.id), null);
      await assert.rejects(storage.updateAsset(kept.id, 1, { title: 'Not kept', updated_at: at(2) }, taken(kept.id)));
      assert.deepStrictEqual(await storage.getAsset(kept.id), kept);
      await assert.rejects(storage.addImage(imageInput(kept.id), 10, taken(kept.id)));
      assert.deepStrictEqual(await storage.listImages(kept.id), []);
      const [one, two] = [imageInput(kept.id), imageInput(kept.id)];
      for (const image of [one, two]) assert.equal((await storage.addImage(image, 10)).outcome, 'added');
      const before = await storage.listImages(kept.id);
      await assert.rejects(storage.arrangeImages(kept.id, [two.id, one.id], taken(kept.id)));
      assert.deepStrictEqual(await storage.listImages(kept.id), before);
      const token = tokenRecord(account.id);
      await storage.insertToken(token);
      await assert.rejects(storage.revokeToken(account.id, token.id, at(3), taken(token.id)));
      assert.equal((await storage.getToken(token.id))?.revoked_at, null);
      await assert.rejects(storage.deleteAsset(kept.id, 1, taken(kept.id)));
      assert.deepStrictEqual(await storage.getAsset(kept.id), kept);
      assert.deepStrictEqual(eventsOf(await claimAt(storage, 10)).map((e) => e.id), [first.id]);
    },
    'of concurrent changes at one revision, the one that is made has its event and the others have none': async (storage) => {
      const { account } = await subscribed(storage);
      const asset = await storedAsset(storage, { owner_id: account.id });
      await withPeer(storage, async (pick) => {
        const { count } = await countOf(
          Array.from({ length: 10 }, (_, i) => pick(i).updateAsset(asset.id, 1, { title: `Title ${i}`, updated_at: at(2) }, [outboxEvent(account.id, asset.id)])),
          (r) => r.outcome === 'updated',
        );
        assert.equal(count, 1);
      });
      const claimed = await claimAt(storage, 10);
      assert.equal(claimed.length, 1);
      const title = (await storage.getAsset(asset.id))!.title;
      assert.ok(claimed[0]!.event.data.includes(asset.id));
      assert.match(title, /^Title \d$/);
    },
    'a listing created with events writes each once, in order, with one delivery to each endpoint subscribed to it, and nothing when the slug is taken': async (storage) => {
      const { account, endpoint: every } = await subscribed(storage);
      const created = endpointRecord(account.id, { event_types: ['asset.created'] });
      const published = endpointRecord(account.id, { event_types: ['asset.published'] });
      const disabled = endpointRecord(account.id, { event_types: ['asset.created'], enabled: false, disabled_reason: 'by the seller', disabled_at: at(0) });
      for (const e of [created, published, disabled]) assert.equal(await storage.insertWebhookEndpoint(e, 10), 'created');
      const asset = assetRecord(account.id);
      const events = [outboxEvent(account.id, asset.id, 'asset.created', 1), outboxEvent(account.id, asset.id, 'asset.updated', 1)];
      assert.equal((await storage.createAsset(asset, events)).outcome, 'created');
      assert.equal((await storage.createAsset(assetRecord(account.id, { slug: asset.slug }), [outboxEvent(account.id, asset.id, 'asset.created', 2)])).outcome, 'slug_taken');
      const claimed = (await claimAt(storage, 10)).sort((a, b) => a.event.sequence - b.event.sequence || a.endpoint.id.localeCompare(b.endpoint.id));
      assert.deepStrictEqual(
        claimed.map((c) => [c.event.id, c.endpoint.id]),
        [...[every.id, created.id].sort().map((id) => [events[0]!.id, id]), [events[1]!.id, every.id]],
        'the created event to both endpoints that take it, the updated one to the one that takes everything, the refused create to none',
      );
      assert.ok(claimed[2]!.event.sequence > claimed[0]!.event.sequence, 'in the order given');
      assert.equal(claimed[0]!.event.sequence, claimed[1]!.event.sequence, 'one event, two deliveries');
      assert.equal(new Set(claimed.map((c) => c.delivery.id)).size, 3);
    },
    "an event goes to the account's enabled endpoints that subscribe to its type, as they are when it is written": async (storage) => {
      const { account, endpoint: every } = await subscribed(storage);
      const published = endpointRecord(account.id, { event_types: ['asset.published', 'asset.rejected'] });
      const disabled = endpointRecord(account.id, { enabled: false, disabled_reason: 'by the seller', disabled_at: at(0) });
      const elsewhere = endpointRecord((await owner(storage)).id);
      for (const e of [published, disabled, elsewhere]) assert.equal(await storage.insertWebhookEndpoint(e, 10), 'created');
      const asset = assetRecord(account.id);
      await storage.createAsset(asset, [outboxEvent(account.id, asset.id, 'asset.created', 1)]);
      await storage.updateAsset(asset.id, 1, { status: 'published', updated_at: at(2) }, [outboxEvent(account.id, asset.id, 'asset.published', 2)]);
      // An endpoint made afterwards gets none of the earlier events.
      const later = endpointRecord(account.id);
      assert.equal(await storage.insertWebhookEndpoint(later, 10), 'created');
      const claimed = await claimAt(storage, 10);
      assert.deepStrictEqual(
        claimed.map((c) => [c.event.type, c.endpoint.id]).sort(),
        [['asset.created', every.id], ['asset.published', every.id], ['asset.published', published.id]].sort(),
      );
      // A test event goes to the endpoint named, whatever it subscribes to; none to a disabled or another account's.
      const test = (endpointId: string) => storage.insertWebhookEvent(outboxEvent(account.id, endpointId, 'webhook.test', 3), endpointId);
      const queued = await test(published.id);
      assert.deepStrictEqual(queued.map((d) => [d.endpoint_id, d.event_type, d.status]), [[published.id, 'webhook.test', 'pending']]);
      assert.deepStrictEqual(await test(disabled.id), []);
      assert.deepStrictEqual(await test(elsewhere.id), []);
      assert.deepStrictEqual(await test(crypto.randomUUID()), []);
      // Without an endpoint named it is fanned out like a change's event.
      const traceparent = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`;
      const fanned = await storage.insertWebhookEvent(outboxEvent(account.id, asset.id, 'asset.updated', 4, { traceparent }));
      assert.deepStrictEqual(fanned.map((d) => d.endpoint_id).sort(), [every.id, later.id].sort());
      const again = await claimAt(storage, 10);
      assert.deepStrictEqual(again.map((c) => c.delivery.id).sort(), [...queued, ...fanned].map((d) => d.id).sort());
      assert.deepStrictEqual(again.map((c) => [c.event.type, c.event.traceparent]).sort(), [['asset.updated', traceparent], ['asset.updated', traceparent], ['webhook.test', null]]);
    },
  };
}
