import type { StoragePort } from '../../core/ports/storage.js';
import { accountTests, categoryTests, tokenTests } from './storage/accounts.js';
import { assetTests, imageTests } from './storage/assets.js';
import { changeTests } from './storage/changes.js';
import { atomicityTests, copyTests } from './storage/concurrency.js';
import type { WithPeer } from './storage/fixtures.js';
import { idempotencyTests } from './storage/idempotency.js';
import { leaseTests } from './storage/leases.js';
import { listPageTests } from './storage/list-pages.js';
import { searchTests } from './storage/search.js';
import { uploadTests } from './storage/uploads.js';
import { webhookTests } from './storage/webhooks.js';
import { webhookDeliveryTests } from './storage/webhook-deliveries.js';
import { versionTests } from './versions.suite.js';
import { dashboardTests } from './dashboard.suite.js';
import { auditTests } from './audit.suite.js';
import { registerGroups, withPeer as withPeerOf, type SuiteOptions } from './suite.js';

export type StorageGroup = 'accounts' | 'tokens' | 'categories' | 'assets' | 'uploads' | 'images' | 'copies' | 'atomicity' | 'changes' | 'idempotency' | 'leases' | 'webhooks' | 'versions' | 'dashboard' | 'audit';

export interface StorageSuiteOptions<S extends StoragePort = StoragePort> extends SuiteOptions<S, StorageGroup> {
  capabilities?: {
    /**
     * Opens a second handle on the data of `storage` (another connection, as another process
     * would have). The atomicity tests then split their concurrent calls between the two.
     */
    openPeer?: (storage: S) => Promise<StoragePort & { close?: () => Promise<void> }>;
  };
}

/**
 * The port's MUST rules and record round trips, run against any StoragePort (one file per group in
 * storage/), grouped by the capability ports of core/ports/storage.ts: accounts and tokens
 * (accounts, tokens), listings (categories, assets, images), uploads, leases, idempotency, the
 * outbox (webhooks), the change version (changes), versions of published listings (versions,
 * an optional capability: versions.suite.ts) and the dashboard's sessions and sign-in links
 * (dashboard, optional too: dashboard.suite.ts) and the audit log (audit, optional: audit.suite.ts); copies and atomicity hold across them.
 */
export function runStorageSuite<S extends StoragePort>(options: StorageSuiteOptions<S>): void {
  /** Each call alternately on the store and on its peer, when the adapter can open one. */
  const withPeer: WithPeer<S> = (storage, body) => withPeerOf(storage, options.capabilities?.openPeer, body);

  registerGroups<S, StorageGroup>('storage port', options, {
    accounts: accountTests,
    tokens: tokenTests,
    categories: categoryTests,
    assets: { ...assetTests, ...listPageTests(withPeer as WithPeer<StoragePort>), ...searchTests },
    uploads: uploadTests(withPeer),
    images: imageTests,
    copies: copyTests,
    atomicity: atomicityTests(withPeer),
    changes: changeTests(withPeer),
    idempotency: idempotencyTests(withPeer),
    leases: leaseTests(withPeer),
    webhooks: { ...webhookTests(withPeer), ...webhookDeliveryTests(withPeer) },
    versions: versionTests(withPeer),
    dashboard: dashboardTests(withPeer),
    audit: auditTests(),
  });
}
