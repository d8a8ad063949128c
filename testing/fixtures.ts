import type { AccountInput } from '../core/admin/accounts.js';
import type { Scope } from '../core/domain/scopes.js';

/** An account of the test marketplace and a token of it. */
export interface TestAccount {
  id: string;
  username: string;
  token: string;
  tokenId: string;
  scopes: Scope[];
  /** `{ authorization: 'Bearer <token>' }`, to spread into a request's headers. */
  headers: { authorization: string };
}

/** The accounts every test marketplace has, by the function that returns them and their username. */
export const fixtureAccounts = {
  seller: { username: 'seller', account: { seller_status: 'approved', payouts_connected: true, subscription_tier: 'pro', plan_features: ['scheduled_publishing'] } },
  secondSeller: { username: 'second-seller', account: { seller_status: 'approved', payouts_connected: true, subscription_tier: 'pro', plan_features: ['scheduled_publishing'] } },
  nonSeller: { username: 'non-seller', account: { seller_status: 'none' } },
  pendingSeller: { username: 'pending-seller', account: { seller_status: 'pending' } },
  restricted: { username: 'restricted-seller', account: { seller_status: 'approved', payouts_connected: true, is_restricted: true } },
  suspended: { username: 'suspended-seller', account: { seller_status: 'approved', payouts_connected: true, is_suspended: true } },
  sellerWithoutPayouts: { username: 'seller-without-payouts', account: { seller_status: 'approved', payouts_connected: false } },
  sellerWithoutScheduling: { username: 'seller-without-scheduling', account: { seller_status: 'approved', payouts_connected: true } },
} as const satisfies Record<string, { username: string; account: Omit<AccountInput, 'username'> }>;

export type FixtureName = keyof typeof fixtureAccounts;

export type FixtureFunction = (options?: { scopes?: Scope[] }) => Promise<TestAccount>;
