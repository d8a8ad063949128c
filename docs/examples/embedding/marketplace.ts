/**
 * The marketplace every embedding example mounts: SQLite and filesystem blobs in one directory,
 * plus a demo seller with a token so that you can try it at once.
 *
 * In your project the imports are `marketkit`, `marketkit/adapters/sqlite` and
 * `marketkit/adapters/fs`; these copies import the repository's sources so that the tests run them
 * as they are. The same file runs on Node, Bun (bun:sqlite) and Deno (node:sqlite).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import process from 'node:process';
import { createMarketplace, type Marketplace } from '../../../core/index.js';
import { sqliteStorage } from '../../../adapters/sqlite/index.js';
import { fsBlobs } from '../../../adapters/fs/index.js';

export async function openMarketplace(dataDir = process.env.MARKETKIT_DATA_DIR ?? '.marketkit-example'): Promise<Marketplace> {
  await mkdir(dataDir, { recursive: true });
  return createMarketplace({
    storage: await sqliteStorage({ path: join(dataDir, 'marketkit.db') }),
    blobs: fsBlobs({ root: join(dataDir, 'blobs') }),
    // Keep upload URLs valid across restarts and instances: a secret of at least 32 bytes.
    ...(process.env.MARKETKIT_SIGNING_SECRET ? { signingSecret: process.env.MARKETKIT_SIGNING_SECRET } : {}),
    // The sellers' and moderators' dashboard, under the mount: /market/dashboard (docs/dashboard.md).
    dashboard: {},
  });
}

/** A one-time dashboard sign-in link for the demo seller; `siteUrl` is where browsers reach the mount (http://localhost:3000/market). */
export async function demoSignInLink(marketplace: Marketplace, siteUrl: string): Promise<string> {
  const seller = await marketplace.ports.storage.findAccountByUsername('demo-seller');
  if (!seller) throw new Error('no demo seller yet: demoSellerToken() makes it');
  return (await marketplace.admin.createSignInLink({ accountId: seller.id, siteUrl })).url;
}

/** A token of an approved demo seller. In your app, accounts come from your own sign-up. */
export async function demoSellerToken(marketplace: Marketplace): Promise<string> {
  const existing = await marketplace.ports.storage.findAccountByUsername('demo-seller');
  const seller = existing ?? (await marketplace.admin.createAccount({ username: 'demo-seller', seller_status: 'approved' }));
  const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 'demo' });
  return token;
}
