import type { IdempotencyClaim, IdempotencyClaimResult, KeptAnswer } from './records.js';

/**
 * Idempotency keys (docs/rest.md, "Safe retries"). Part of StoragePort, and a port of its own: a
 * key is claimed before the request's change and finished after it, never in its transaction, so
 * createMarketplace's `idempotency` option may keep keys in another store (Redis, say) than the
 * records.
 */
export interface IdempotencyPort {
  /**
   * Claims an idempotency key for a request (docs/rest.md, "Safe retries"), keys being per account.
   * Atomic: of any number of concurrent claims of one free key, by any number of processes, exactly
   * one MUST be `claimed`. A key whose record expired (`ttlMs` after the claim that made it) is free;
   * so is one held by a run of the same fingerprint whose lease ran out. A record of another
   * fingerprint is `mismatch` until it expires, whatever its state.
   */
  claimIdempotencyKey(claim: IdempotencyClaim): Promise<IdempotencyClaimResult>;
  /**
   * Ends a claimed run: with an answer, keeps it for later claims of the same request (`done`) until
   * the record expires; with null, frees the key (a refusal that is not kept, such as 400). Only the
   * run that holds the key (`holder`) changes it: after its lease was taken over, this does nothing.
   */
  finishIdempotencyKey(accountId: string, key: string, holder: string, answer: KeptAnswer | null): Promise<void>;
  /** Removes up to `limit` key records that expired at or before `nowMs`; how many it removed. */
  purgeIdempotencyKeys(nowMs: number, limit: number): Promise<number>;
}
