/** The store's health check: part of StoragePort. */
export interface StoreHealthPort {
  /** Resolves when the store answers; throws when it does not (health check). */
  ping(): Promise<void>;
}

/**
 * The change version, a declared capability: an adapter that can tell when anything stored changed
 * implements it, and the core keeps reads until it moves; one that cannot leaves it out. Part of
 * StoragePort.
 */
export interface ChangeVersionCapability {
  /**
   * Optional. A number that differs from every earlier answer once any stored record may have
   * changed, whether this process or another one changed it; equal answers promise that nothing
   * did. The core asks once per request, first. With it, the core keeps what it read (the caller
   * of a token, the results of read-only operations) until the number changes (docs/performance.md,
   * "The read cache"); without it, every request reads the store. An answer that changes when
   * nothing changed only costs cache hits; one that stays the same across a change serves stale
   * data, so an adapter that cannot tell leaves this method out.
   *
   * The rule is about the answer and the records read after it: an answer never reflects a change
   * the records read after it do not show (a number that moves before the write is visible, such
   * as a WAL position, is not a version), and a call made after a write resolved, by any
   * process, answers a number that differs from every answer given before that write.
   *
   * Synchronous and cheap where the store can tell at once (memory, SQLite). A store that must ask
   * a server answers with a promise (PostgreSQL); the core awaits it only then, and a rejection
   * makes that one request read the store. An adapter may answer with a bounded delay instead,
   * when its documentation says so (PostgreSQL's `maxStalenessMs`).
   *
   * A token's last use (`touchToken`) need not move it: the core keeps the last use it recorded
   * itself, and no kept read shows it; nor need idempotency keys or the webhook methods' own writes
   * (endpoints, claims, attempts, purges), which no kept read shows. Every other write MUST.
   */
  changeVersion?(): number | Promise<number>;
  /**
   * Optional, with changeVersion. Both of the store's versions in one answer: `all`, the number
   * changeVersion() would answer, and `callers`, which follows changeVersion's rules for the writes
   * to accounts and tokens only (a token's last use apart): an account's profile, plan, restriction
   * or suspension, a token created, revoked or deleted, by this process or another. The core keeps
   * the caller of a token until `callers` moves, so a listing's write does not make every client's
   * next request read its token and account again. Without it, the caller is kept until `all` moves.
   */
  changeVersions?(): ChangeVersions | Promise<ChangeVersions>;
}

/** What changeVersions() answers. */
export interface ChangeVersions {
  readonly all: number;
  readonly callers: number;
}
