/**
 * The in-process events and the webhooks come from one source (core/changes/commit.ts): every type
 * of the webhook event table reaches mk.events, for changes made over REST and over MCP alike, as
 * the event its webhook delivers (the same id, type, timestamp, account and data).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { webhookEventTypeNames, type WebhookEventType } from '../../core/domain/webhook-events.js';
import { scopes } from '../../core/domain/scopes.js';
import { createMarketplace } from '../../core/marketplace.js';
import type { MarketplaceEvent } from '../../core/ports/events.js';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import { createTestMarketplace, type TestAccount, type TestMarketplace } from '../../testing/index.js';
import { pngBytes } from '../fixtures/server.js';
import { mcpAccept } from '../fixtures/mcp.js';
import { send } from './kit-client.js';

/** The seller's changes, made over one surface. A change the surface does not offer is null. */
interface Surface {
  create(extra?: Record<string, unknown>): Promise<string>;
  update(id: string): Promise<void>;
  remove(id: string): Promise<void>;
  confirmFile(id: string): Promise<void>;
  /** The confirmed image's id. */
  confirmImage(id: string): Promise<string>;
  arrangeImages(id: string, imageIds: string[]): Promise<void>;
  submit(id: string): Promise<void>;
  revokeToken: ((tokenId: string) => Promise<void>) | null;
  sendTest: ((endpointId: string) => Promise<void>) | null;
  /** A new version of a published listing with its file confirmed: its id. */
  newVersion(id: string, version: string, extra?: Record<string, unknown>): Promise<string>;
  submitVersion(id: string, versionId: string): Promise<void>;
  withdrawVersion(id: string, versionId: string): Promise<void>;
}

let slugs = 0;
const newListing = () => ({ title: 'Event Pack', slug: `event-pack-${++slugs}` });

/** PUTs bytes to a signed URL the way a client does (no token). */
async function put(mk: TestMarketplace, url: string, type: string, bytes: Uint8Array<ArrayBuffer>) {
  const answer = await mk.fetch(url, { method: 'PUT', headers: { 'content-type': type }, body: bytes });
  assert.equal(answer.status, 200, `PUT ${url}`);
}

const fileBytes = new TextEncoder().encode('PK\u0003\u0004 event bytes') as Uint8Array<ArrayBuffer>;

function restSurface(mk: TestMarketplace, seller: TestAccount): Surface {
  const call = async (method: string, path: string, body?: unknown) => {
    const answer = await send(mk, method, path, { as: seller, ...(body === undefined ? {} : { body }) });
    assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  return {
    create: async (extra = {}) => (await call('POST', '/assets', { ...newListing(), ...extra })).id,
    update: async (id) => void (await call('PATCH', `/assets/${id}`, { title: 'Renamed Pack' })),
    remove: async (id) => void (await call('DELETE', `/assets/${id}`)),
    async confirmFile(id) {
      const issued = await call('POST', `/assets/${id}/upload-url`, { filename: 'pack.zip' });
      await put(mk, issued.signed_url, 'application/zip', fileBytes);
      await call('POST', `/assets/${id}/confirm-file`, { storage_path: issued.storage_path, file_size: fileBytes.byteLength });
    },
    async confirmImage(id) {
      const issued = await call('POST', `/assets/${id}/images/upload-url`, { filename: 'shot.png' });
      await put(mk, issued.signed_url, 'image/png', pngBytes);
      return (await call('POST', `/assets/${id}/confirm-image`, { public_url: issued.public_url })).image_id;
    },
    arrangeImages: async (id, imageIds) => void (await call('PUT', `/assets/${id}/images/order`, { image_ids: imageIds })),
    submit: async (id) => void (await call('POST', `/assets/${id}/submit`)),
    async newVersion(id, version, extra = {}) {
      const made = await call('POST', `/assets/${id}/versions`, { version, release_notes: 'Fixes.', ...extra });
      const issued = await call('POST', `/assets/${id}/versions/${made.id}/upload-url`, { filename: 'pack-2.zip' });
      await put(mk, issued.signed_url, 'application/zip', fileBytes);
      await call('POST', `/assets/${id}/versions/${made.id}/confirm-file`, { storage_path: issued.storage_path, file_size: fileBytes.byteLength });
      return made.id;
    },
    submitVersion: async (id, versionId) => void (await call('POST', `/assets/${id}/versions/${versionId}/submit`)),
    withdrawVersion: async (id, versionId) => void (await call('POST', `/assets/${id}/versions/${versionId}/withdraw`)),
    revokeToken: async (tokenId) => void (await call('DELETE', `/tokens?id=${tokenId}`)),
    sendTest: async (endpointId) => void (await call('POST', `/webhooks/${endpointId}/test`)),
  };
}

let rpcIds = 0;

function mcpSurface(mk: TestMarketplace, seller: TestAccount): Surface {
  const tool = async (name: string, args: Record<string, unknown>) => {
    const response = await mk.fetch(`${mk.url}/api/mcp`, {
      method: 'POST',
      headers: { ...seller.headers, 'content-type': 'application/json', accept: mcpAccept },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcIds, method: 'tools/call', params: { name, arguments: args } }),
    });
    const body = await response.json();
    assert.ok(body.result && !body.result.isError, `${name}: ${JSON.stringify(body)}`);
    return JSON.parse(body.result.content[0].text);
  };
  return {
    create: async (extra = {}) => (await tool('create_asset', { ...newListing(), ...extra })).id,
    update: async (id) => void (await tool('update_asset', { asset_id: id, title: 'Renamed Pack' })),
    remove: async (id) => void (await tool('delete_asset', { asset_id: id })),
    async confirmFile(id) {
      const issued = await tool('get_asset_upload_url', { asset_id: id, filename: 'pack.zip' });
      await put(mk, issued.signed_url, 'application/zip', fileBytes);
      await tool('confirm_asset_file', { asset_id: id, storage_path: issued.storage_path, file_size: fileBytes.byteLength });
    },
    async confirmImage(id) {
      const issued = await tool('get_image_upload_url', { asset_id: id, filename: 'shot.png' });
      await put(mk, issued.signed_url, 'image/png', pngBytes);
      return (await tool('confirm_image', { asset_id: id, public_url: issued.public_url })).image_id;
    },
    arrangeImages: async (id, imageIds) => void (await tool('arrange_images', { asset_id: id, image_ids: imageIds })),
    submit: async (id) => void (await tool('submit_asset', { asset_id: id })),
    async newVersion(id, version, extra = {}) {
      const made = await tool('create_asset_version', { asset_id: id, version, release_notes: 'Fixes.', ...extra });
      const issued = await tool('get_version_upload_url', { asset_id: id, version_id: made.id, filename: 'pack-2.zip' });
      await put(mk, issued.signed_url, 'application/zip', fileBytes);
      await tool('confirm_version_file', { asset_id: id, version_id: made.id, storage_path: issued.storage_path, file_size: fileBytes.byteLength });
      return made.id;
    },
    submitVersion: async (id, versionId) => void (await tool('submit_asset_version', { asset_id: id, version_id: versionId })),
    withdrawVersion: async (id, versionId) => void (await tool('withdraw_asset_version', { asset_id: id, version_id: versionId })),
    // The hosted MCP endpoint has no token or webhook tools: these changes are REST's only.
    revokeToken: null,
    sendTest: null,
  };
}

interface Scene {
  mk: TestMarketplace;
  seller: TestAccount;
  over: Surface;
  endpointId: string;
}

const hour = 3_600_000;

/** A listing with a confirmed file, submitted over the surface: pending. */
async function pending(scene: Scene): Promise<string> {
  const id = await scene.over.create();
  await scene.over.confirmFile(id);
  await scene.over.submit(id);
  return id;
}

/** A published listing (approved by the kit's moderator). */
async function published(scene: Scene): Promise<string> {
  return (await scene.mk.moderate.approve(await pending(scene))).id;
}

/** A published listing with a new version submitted over the surface: pending review. */
async function submittedVersion(scene: Scene, extra?: Record<string, unknown>): Promise<{ id: string; versionId: string }> {
  const id = await published(scene);
  const versionId = await scene.over.newVersion(id, '1.1.0', extra);
  await scene.over.submitVersion(id, versionId);
  return { id, versionId };
}

/**
 * How a change of each type is made: by the seller over the surface, or by the kit's moderator and
 * clock on a listing the seller made over it. Keyed by the table of webhook event types, so that a
 * new type fails to compile (and this test to run) until it says how its change is made.
 */
const causes: Record<WebhookEventType, (scene: Scene) => Promise<void> | 'not offered'> = {
  'asset.created': async ({ over }) => void (await over.create()),
  'asset.updated': async ({ over }) => over.update(await over.create()),
  'asset.deleted': async ({ over }) => over.remove(await over.create()),
  'asset.file_confirmed': async ({ over }) => over.confirmFile(await over.create()),
  'asset.image_confirmed': async ({ over }) => void (await over.confirmImage(await over.create())),
  'asset.images_arranged': async ({ over }) => {
    const id = await over.create();
    const [first, second] = [await over.confirmImage(id), await over.confirmImage(id)];
    await over.arrangeImages(id, [second, first]);
  },
  'asset.submitted': async (scene) => void (await pending(scene)),
  'asset.scheduled': async ({ mk, over }) => {
    const id = await over.create({ scheduled_publish_at: new Date(mk.clock.now() + hour).toISOString() });
    await over.confirmFile(id);
    await over.submit(id);
  },
  'asset.released': async (scene) => {
    await causes['asset.scheduled'](scene);
    await scene.mk.clock.advance(2 * hour);
  },
  'asset.published': async (scene) => void (await scene.mk.moderate.approve(await pending(scene))),
  'asset.rejected': async (scene) => void (await scene.mk.moderate.reject(await pending(scene), 'Missing license')),
  'asset.changes_requested': async (scene) => void (await scene.mk.moderate.requestChanges(await pending(scene), 'Add a preview')),
  'asset.archived': async (scene) => void (await scene.mk.moderate.archive((await scene.mk.moderate.approve(await pending(scene))).id)),
  'asset.version_submitted': async (scene) => void (await submittedVersion(scene)),
  'asset.version_approved': async (scene) => void (await scene.mk.moderate.versions.approve((await submittedVersion(scene)).versionId)),
  'asset.version_scheduled': async (scene) => {
    const { versionId } = await submittedVersion(scene, { release_at: new Date(scene.mk.clock.now() + hour).toISOString() });
    await scene.mk.moderate.versions.approve(versionId);
  },
  'asset.version_changes_requested': async (scene) => void (await scene.mk.moderate.versions.requestChanges((await submittedVersion(scene)).versionId, 'Add the changelog')),
  'asset.version_rejected': async (scene) => void (await scene.mk.moderate.versions.reject((await submittedVersion(scene)).versionId, 'Broken archive')),
  'asset.version_withdrawn': async (scene) => {
    const id = await published(scene);
    await scene.over.withdrawVersion(id, await scene.over.newVersion(id, '1.1.0'));
  },
  'asset.version_rolled_back': async (scene) => {
    const { id, versionId } = await submittedVersion(scene);
    await scene.mk.moderate.versions.approve(versionId);
    await scene.mk.moderate.versions.rollback(id, 'Crashes on start');
  },
  'token.revoked': (scene) => scene.over.revokeToken?.(scene.seller.tokenId!) ?? 'not offered',
  'webhook.test': (scene) => scene.over.sendTest?.(scene.endpointId) ?? 'not offered',
};

/** What mk.events and mk.webhooks hold, compared by the webhook's own fields. */
const asDelivered = (event: MarketplaceEvent) => ({ id: event.id, type: event.type, timestamp: event.at, account_id: event.account_id, data: event.data });

for (const [name, surfaceOf] of [
  ['REST', restSurface],
  ['MCP', mcpSurface],
] as const) {
  describe(`changes made over ${name}`, () => {
    for (const type of webhookEventTypeNames) {
      test(`${type} reaches mk.events as its webhook delivers it: the same id, type, timestamp, account and data`, async (t) => {
        const mk = createTestMarketplace({ now: '2026-03-01T12:00:00.000Z' });
        const seller = await mk.seller();
        // A token of its own for the revocation, so that the seller's calls keep theirs.
        const spare = await mk.seller({ scopes: ['assets:read'] });
        const endpoint = await send(mk, 'POST', '/webhooks', { as: seller, body: { url: 'https://hooks.castle.example/events', event_types: ['*'] } });
        assert.equal(endpoint.status, 201);
        const scene: Scene = { mk, seller: { ...seller, tokenId: spare.tokenId }, over: surfaceOf(mk, seller), endpointId: endpoint.body.id };
        if ((await causes[type](scene)) === 'not offered') {
          assert.equal(name, 'MCP', `${type} is offered over REST`);
          assert.ok(['token.revoked', 'webhook.test'].includes(type), `the hosted MCP endpoint offers a change that makes ${type}`);
          t.diagnostic(`${type}: no MCP tool makes this change (REST only); its REST test covers it`);
          return;
        }
        const delivered = mk.webhooks.list().map((d) => d.event);
        assert.ok(delivered.some((e) => e.type === type), `a webhook delivered ${type}; delivered: ${delivered.map((e) => e.type).join(', ')}`);
        // Every delivered event was heard in process, and nothing else was: one source.
        assert.deepStrictEqual(
          mk.events.list().map(asDelivered),
          delivered.map(({ sequence: _sequence, ...event }) => event),
        );
      });
    }
  });
}

test('the two events of one deletion, the webhook and the in-process one, carry one timestamp even on a clock that moves at every read', async () => {
  let now = Date.parse('2026-03-01T12:00:00.000Z');
  const heard: MarketplaceEvent[] = [];
  const bodies: string[] = [];
  const marketplace = createMarketplace({
    siteUrl: 'https://market.example',
    storage: memoryStorage(),
    blobs: memoryBlobs(),
    clock: { now: () => (now += 7) },
    events: { emit: (event) => heard.push(event) },
    webhooks: { allowHttp: true, allowPrivateAddresses: true, sender: { send: async (request) => (bodies.push(request.body), { status: 200, latencyMs: 1 }) } },
  });
  const { token } = await marketplace.admin.createToken({ accountId: (await marketplace.admin.createAccount({ username: 'clock-seller', seller_status: 'approved' })).id, name: 'events', scopes: [...scopes] });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await marketplace.fetch(new Request(`https://market.example/api/v1${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) }));
    assert.ok(response.status < 300, `${method} ${path}: ${response.status}`);
    return response.json();
  };
  await call('POST', '/webhooks', { url: 'https://hooks.castle.example/clock', event_types: ['asset.deleted'] });
  const { id } = await call('POST', '/assets', newListing());
  await call('DELETE', `/assets/${id}`);
  while ((await marketplace.webhooks.deliverDue()).attempted > 0);
  const [deletion] = heard.filter((e) => e.type === 'asset.deleted');
  const [delivered] = bodies.map((body) => JSON.parse(body));
  assert.ok(deletion && delivered, 'heard in process and delivered');
  assert.equal(deletion.at, delivered.timestamp);
  assert.equal(deletion.id, delivered.id);
  assert.deepStrictEqual([deletion.from, deletion.to], ['draft', null]);
});
