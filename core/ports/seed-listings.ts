import type { AssetRecord } from './records.js';
import type { ListingsPort } from './listings.js';

/**
 * Loads many new listings into a store, for benchmarks and test seeding: the store's bulk path
 * when it has one (ListingsPort.seedListings), else createAsset one by one. No outbox event is
 * written: seeding is not a change anyone subscribed to.
 */
export async function seedListings(storage: Pick<ListingsPort, 'createAsset' | 'seedListings'>, assets: readonly AssetRecord[]): Promise<void> {
  if (storage.seedListings) return storage.seedListings(assets);
  for (const asset of assets) {
    const result = await storage.createAsset(asset);
    if (result.outcome !== 'created') throw new Error(`seedListings: the slug ${asset.slug} is taken`);
  }
}
