import type { LeasePort } from '../../core/ports/storage.js';
import { leaseTests } from './storage/leases.js';
import { registerGroups, withPeer, type SuiteOptions } from './suite.js';

export interface LeaseSuiteOptions<P extends LeasePort = LeasePort> extends SuiteOptions<P, 'leases'> {
  capabilities?: {
    /** A second handle on the same leases (another connection, as another process would open). */
    openPeer?: (port: P) => Promise<LeasePort & { close?: () => Promise<void> }>;
  };
}

/**
 * The lease port's MUST rules on a LeasePort of its own (createMarketplace's `leases` option), as
 * the storage suite's `leases` group runs them on a StoragePort.
 */
export function runLeaseSuite<P extends LeasePort>(options: LeaseSuiteOptions<P>): void {
  registerGroups<P, 'leases'>('lease port', options, { leases: leaseTests<P>((port, body) => withPeer(port, options.capabilities?.openPeer, body)) });
}
