import { scopes } from '../core/domain/scopes.js';
import type { Marketplace } from '../core/marketplace.js';

/** The account `marketkit serve` makes for local development. */
export const devSellerName = 'dev-seller';

/**
 * The dev seller, created with a token of every scope the first time the data is used; later
 * starts find it and make no token (the first one was shown once, and is never stored).
 */
export async function ensureDevSeller(marketplace: Marketplace): Promise<{ id: string; token: string | null }> {
  const existing = await marketplace.ports.storage.findAccountByUsername(devSellerName);
  if (existing) return { id: existing.id, token: null };
  let seller;
  try {
    seller = await marketplace.admin.createAccount({
      username: devSellerName,
      display_name: 'Dev Seller',
      seller_status: 'approved',
      payouts_connected: true,
      subscription_tier: 'pro',
      plan_features: ['scheduled_publishing'],
    });
  } catch (error) {
    // Another instance starting at the same time created it first: theirs shows the token.
    const created = await marketplace.ports.storage.findAccountByUsername(devSellerName);
    if (created) return { id: created.id, token: null };
    throw error;
  }
  const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 'dev token', scopes: [...scopes] });
  return { id: seller.id, token };
}
