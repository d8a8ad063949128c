import type { IdempotencyPort, LeasePort, StoragePort } from './ports/storage.js';

/** The capability ports createMarketplace takes beside `storage`, each in a store of its own. */
export interface SeparateCapabilities {
  leases?: LeasePort | undefined;
  idempotency?: IdempotencyPort | undefined;
}

const leaseMethods = new Set<PropertyKey>(['tryLease']);
const idempotencyMethods = new Set<PropertyKey>(['claimIdempotencyKey', 'finishIdempotencyKey', 'purgeIdempotencyKeys']);

/**
 * The storage the core sees: `storage`, with job leases and idempotency keys answered by their own
 * ports when given. Sound because neither shares a transaction with a record (core/ports/leases.ts,
 * core/ports/idempotency.ts). Without either, `storage` itself, untouched (no cost per call).
 */
export function withCapabilities(storage: StoragePort, { leases, idempotency }: SeparateCapabilities): StoragePort {
  if (!leases && !idempotency) return storage;
  return new Proxy(storage, {
    get(target, name) {
      const owner = leases && leaseMethods.has(name) ? leases : idempotency && idempotencyMethods.has(name) ? idempotency : target;
      const value = Reflect.get(owner, name, owner) as unknown;
      // Bound to its own port: adapters may be classes whose methods use `this`.
      return typeof value === 'function' ? value.bind(owner) : value;
    },
  });
}
