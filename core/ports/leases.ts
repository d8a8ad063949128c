/**
 * Job leases: one instance at a time runs a timed job (the upload sweep, the release of scheduled
 * listings). Part of StoragePort, and a port of its own: a lease needs no transaction with any
 * record, so createMarketplace's `leases` option may keep leases in another store (one Redis
 * serving many databases, say) than the records.
 */
export interface LeasePort {
  /**
   * A lease on a named job, so that a job many instances run on a timer runs on one at a time:
   * true when `holder` now holds `name` until `nowMs + ttlMs` (it was free, expired, or already
   * this holder's), false when another holder's lease has not expired. A holder gives its lease
   * back with a negative `ttlMs` (held until a moment already past).
   */
  tryLease(name: string, holder: string, nowMs: number, ttlMs: number): Promise<boolean>;
}
