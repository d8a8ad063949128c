/**
 * Which SHA-256 an append of the resumable protocol feeds (docs/uploads.md, "The hash state").
 * Measured on this machine, hash-wasm's saveable state held the resumable protocol on fs to 0.3 of
 * a bare server's throughput, against 0.7 with no running hash at all; node:crypto is five times
 * faster but its state cannot be saved. So, per store:
 *
 * - A store that can read back what it holds (`digest`: fs) keeps a fast one-shot hasher in this
 *   process between the appends of an unbroken chain (the same instance, the next offset). When the
 *   chain breaks (another instance took an append, a restart, an eviction), the rest of the upload
 *   is not hashed as it arrives: the store hashes the whole file once at completion.
 * - A store that cannot (S3: a multipart upload's parts cannot be read before it completes) saves
 *   hash-wasm's state with every offset, and any instance continues from it.
 */
import type { HashingPort, OneShotSha256 } from '../ports/hashing.js';
import type { ResumableBlobs, StoredProgress } from '../ports/resumable-blobs.js';
import type { UploadStateRecord } from '../ports/upload-state.js';
import { oneShotSha256, resumableSha256, type ResumableSha256 } from './sha256.js';

/** Chains kept per marketplace (by its blob store); the oldest go first past this many uploads. */
const maxChains = 256;
const chainsByStore = new WeakMap<object, Map<string, { offset: number; hasher: OneShotSha256 }>>();

export interface AppendHashing {
  /** What this append's bytes go into; null when they are hashed at completion instead. */
  hasher: Pick<OneShotSha256, 'update'> | null;
  /** The state to save with the new offset (null when nothing is saved). */
  save(): string | null;
  /** The digest of the whole upload, once its last byte is stored (before the store completes it). */
  digest(key: string, progress: StoredProgress): Promise<string>;
  /** After the new offset was recorded: the chain continues from there (or ends with the upload). */
  kept(offset: number, complete: boolean): void;
}

export async function appendHashing(ports: { blobs: object; hashing?: HashingPort | undefined }, store: ResumableBlobs, state: UploadStateRecord): Promise<AppendHashing> {
  const path = state.storage_path;
  if (!store.digest) return savedState(await resumableSha256(state.hash_state));
  const readBack = store.digest.bind(store);
  let chains = chainsByStore.get(ports.blobs);
  if (!chains) chainsByStore.set(ports.blobs, (chains = new Map()));
  // Taken out: it goes back only once this append is recorded, so a failed one ends the chain.
  const chain = chains.get(path);
  chains.delete(path);
  const hasher = chain?.offset === state.offset ? chain.hasher : state.offset === 0 ? (await oneShotSha256(ports.hashing)) : null;
  return {
    hasher,
    save: () => null,
    digest: (key, progress) => (hasher ? Promise.resolve(hasher.hex()) : readBack(key, progress)),
    kept(offset, complete) {
      if (!hasher || complete) return;
      chains.set(path, { offset, hasher });
      if (chains.size > maxChains) chains.delete(chains.keys().next().value!);
    },
  };
}

function savedState(hasher: ResumableSha256): AppendHashing {
  return {
    hasher,
    save: () => hasher.save(),
    digest: () => Promise.resolve(hasher.hex()),
    kept() {},
  };
}
