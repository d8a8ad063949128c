/**
 * Testing a client with Vitest and the testing kit: `npx vitest run --config vitest.config.ts`
 *
 * In your project the import is `marketkit/testing`; this copy imports the repository's sources so
 * that our tests run it as it is.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createTestMarketplace } from '../../../testing/index.js';
import { uploadClient } from './upload-client.js';

const mk = createTestMarketplace();
beforeEach(() => mk.reset());

const listing = { title: 'Forest Pack', slug: 'forest-pack', filename: 'forest.zip', file: new TextEncoder().encode('PK\u0003\u0004 forest') };

describe('uploadClient', () => {
  it('publishes, then the listing is published once the marketplace approves it', async () => {
    const seller = await mk.seller();
    const tool = uploadClient({ api: mk.api, token: seller.token, fetch: mk.fetch });
    const { id, status } = await tool.publish(listing);
    expect(status).toBe('pending');
    await mk.moderate.approve(id);
    await mk.events.untilStatus(id, 'published');
    const asset = await (await mk.fetch(`${mk.api}/assets/${id}`, { headers: seller.headers })).json();
    expect(asset).toMatchObject({ status: 'published', file: { file_size: listing.file.byteLength } });
  });

  it('survives a 429 on create and a dropped PUT in one run', async () => {
    mk.faults.rateLimit('POST /assets', { retryAfter: 0 });
    mk.faults.drop('upload');
    const seller = await mk.seller();
    const tool = uploadClient({ api: mk.api, token: seller.token, fetch: mk.fetch });
    expect((await tool.publish(listing)).status).toBe('pending');
    expect(mk.requests.list().map((r) => [r.operation, r.status])).toEqual([
      ['createAsset', 429],
      ['createAsset', 201],
      ['createAssetUploadUrl', 200],
      ['upload', null],
      ['upload', 200],
      ['confirmAssetFile', 200],
      ['submitAsset', 200],
    ]);
  });

  it('reports a refusal it cannot fix: a seller without payouts cannot submit a paid listing', async () => {
    const seller = await mk.sellerWithoutPayouts();
    const tool = uploadClient({ api: mk.api, token: seller.token, fetch: mk.fetch });
    mk.faults.error({ operation: 'submitAsset' }, 'PAYOUTS_REQUIRED');
    await expect(tool.publish(listing)).rejects.toThrow('409 PAYOUTS_REQUIRED');
  });
});
