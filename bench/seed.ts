import { memoryBlobs } from '../adapters/memory/index.js';
import { assetRecord } from '../conformance/ports/sample-records.js';
import { createMarketplace } from '../core/marketplace.js';
import type { StoragePort } from '../core/ports/storage.js';

/**
 * A seller with a read/write token and `listings` listings, written straight through the storage
 * port (the benchmarks' common starting point). Imports no runtime API, so it runs in a bench
 * child on Node, Bun or Deno. Returns the token, the id of the last listing and every listing's id.
 */
export async function seedSeller(storage: StoragePort, listings: number): Promise<{ token: string; assetId: string; assetIds: string[] }> {
  const seeder = createMarketplace({ storage, blobs: memoryBlobs() });
  const seller = await seeder.admin.createAccount({ username: 'bench', seller_status: 'approved', payouts_connected: true });
  const { token } = await seeder.admin.createToken({ accountId: seller.id, name: 'bench', scopes: ['assets:read', 'assets:write'] });
  const assetIds: string[] = [];
  for (let i = 0; i < listings; i++) {
    const asset = assetRecord(seller.id, { description: 'A pack of stone walls, towers and gates for castle builds.' });
    await storage.createAsset(asset);
    assetIds.push(asset.id);
  }
  return { token, assetId: assetIds.at(-1)!, assetIds };
}
