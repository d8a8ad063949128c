import assert from 'node:assert/strict';
import type { AssetRecord, StoragePort } from '../../../core/ports/storage.js';
import { accountRecord, assetRecord } from '../sample-records.js';

/** One group's tests, by name, each on a fresh store. */
export type StorageTests<S extends StoragePort = StoragePort> = Record<string, (storage: S) => Promise<void>>;

/** Runs `body` with each call alternately on the store and on its peer, when the adapter can open one. */
export type WithPeer<S extends StoragePort> = (storage: S, body: (pick: (i: number) => StoragePort) => Promise<void>) => Promise<void>;

/** An owner stored, as every asset needs. */
export async function owner(storage: StoragePort) {
  const account = accountRecord();
  await storage.insertAccount(account);
  return account;
}

export async function storedAsset(storage: StoragePort, overrides: Partial<AssetRecord> = {}) {
  const asset = assetRecord((await owner(storage)).id, overrides);
  const result = await storage.createAsset(asset);
  assert.equal(result.outcome, 'created');
  return asset;
}

/** The store's changeVersion, awaited when it answers with a promise; an adapter without one skips the group 'changes' with its reason. */
export function versionOf(storage: StoragePort): () => Promise<number> {
  assert.equal(typeof storage.changeVersion, 'function', 'changeVersion is optional: an adapter without it skips the group "changes" (its reads are then never cached)');
  return async () => {
    const answer = storage.changeVersion!();
    assert.ok(typeof answer === 'number' || answer instanceof Promise, 'changeVersion answers a number or a promise of one');
    const version = await answer;
    assert.equal(typeof version, 'number');
    return version;
  };
}
