import type { StoragePort } from '../../core/ports/storage.js';
import { copy, type MemoryStorageState } from './storage-state.js';

/** The memory store's idempotency keys (docs/rest.md, "Safe retries"). */
export function idempotencyMethods(s: MemoryStorageState): Pick<StoragePort, 'claimIdempotencyKey' | 'finishIdempotencyKey' | 'purgeIdempotencyKeys'> {
  const id = (accountId: string, key: string) => `${accountId}\n${key}`;
  return {
    async claimIdempotencyKey(claim) {
      const { accountId, key, fingerprint, holder, nowMs } = claim;
      const found = s.idempotency.get(id(accountId, key));
      if (found && found.expiresAtMs > nowMs) {
        if (found.fingerprint !== fingerprint) return { outcome: 'mismatch' };
        if (found.answer) return { outcome: 'done', answer: copy(found.answer) };
        if (found.leaseUntilMs > nowMs) return { outcome: 'running', leaseUntilMs: found.leaseUntilMs };
      }
      s.idempotency.set(id(accountId, key), { fingerprint, holder, leaseUntilMs: nowMs + claim.leaseMs, expiresAtMs: nowMs + claim.ttlMs, answer: null });
      return { outcome: 'claimed' };
    },
    async finishIdempotencyKey(accountId, key, holder, answer) {
      const found = s.idempotency.get(id(accountId, key));
      if (!found || found.holder !== holder || found.answer) return;
      if (answer) s.idempotency.set(id(accountId, key), { ...found, answer: copy(answer) });
      else s.idempotency.delete(id(accountId, key));
    },
    async purgeIdempotencyKeys(nowMs, limit) {
      let removed = 0;
      for (const [name, record] of [...s.idempotency.entries()]) {
        if (removed >= limit) break;
        if (record.expiresAtMs <= nowMs) {
          s.idempotency.delete(name);
          removed++;
        }
      }
      return removed;
    },
  };
}
