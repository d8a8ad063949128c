/**
 * The suite's fixture accounts on a MarketKit marketplace, made through its admin API: what
 * `marketkit serve --fixtures` and our own tests use to certify our server. A vendor makes the
 * same accounts on their backend however it lets them.
 */
import type { Marketplace } from '../core/marketplace.js';
import { scopes } from '../core/domain/scopes.js';
import { defaultRateLimits } from '../core/rate-limits.js';
import { fixtureAccounts } from '../testing/fixtures.js';
import { fixtureDescriptions, fixtureNames, type Fixtures } from './http/check.js';

export interface FixtureAccounts {
  fixtures: Required<Fixtures>;
  /** A published listing of the main seller (for LISTING_IS_LIVE). */
  publishedAssetId: string;
}

/** Creates the accounts (usernames `${prefix}-seller`, ...; a prefix of at most 14 characters keeps every name within 40) and a token for each. */
export async function createFixtureAccounts(marketplace: Pick<Marketplace, 'admin' | 'ports' | 'moderation'>, prefix = `cf-${Date.now().toString(36)}`): Promise<FixtureAccounts> {
  const { admin } = marketplace;
  // The accounts are the testing kit's fixture table (one table for both: testing/fixtures.ts), named under the prefix.
  const account = (name: keyof typeof fixtureAccounts) =>
    admin.createAccount({ ...fixtureAccounts[name].account, username: `${prefix}-${fixtureAccounts[name].username}` });
  const token = async (accountId: string, tokenScopes?: (typeof scopes)[number][]) =>
    (await admin.createToken({ accountId, name: 'conformance', ...(tokenScopes ? { scopes: tokenScopes } : {}) })).token;

  const seller = await account('seller');
  const second = await account('secondSeller');
  const nonSeller = await account('nonSeller');
  const restricted = await account('restricted');
  const suspended = await account('suspended');
  const noPayouts = await account('sellerWithoutPayouts');

  const fixtures = {
    seller: await token(seller.id, [...scopes]),
    secondSeller: await token(second.id),
    readOnly: await token(seller.id, ['profile:read', 'assets:read']),
    nonSeller: await token(nonSeller.id),
    restricted: await token(restricted.id),
    suspended: await token(suspended.id),
    noPayouts: await token(noPayouts.id),
    revocable: await token(seller.id),
  };
  return { fixtures, publishedAssetId: await publishedListing(marketplace, seller.id, prefix) };
}

/** A listing of the seller taken through moderation to published, as the marketplace would. */
async function publishedListing(marketplace: Pick<Marketplace, 'ports' | 'moderation'>, ownerId: string, prefix: string): Promise<string> {
  const { storage, ids, clock } = marketplace.ports;
  const at = new Date(clock.now()).toISOString();
  const id = ids.uuid();
  const created = await storage.createAsset({
    id,
    owner_id: ownerId,
    title: 'Published Fixture',
    slug: `${prefix}-published`,
    description: null,
    status: 'pending',
    visibility: 'public',
    pricing_type: 'free',
    price: null,
    is_free: true,
    version: '1.0.0',
    category_id: null,
    tags: [],
    scheduled_publish_at: null,
    download_count: 0,
    view_count: 0,
    file: null,
    review: null,
    revision: 1,
    created_at: at,
    updated_at: at,
  });
  if (created.outcome !== 'created') throw new Error(`marketkit conformance fixtures: the slug ${prefix}-published is taken; use another prefix`);
  await marketplace.moderation.approve(id);
  return id;
}

/** The `marketkit conformance` command line that certifies `baseUrl` with these accounts. */
export function conformanceCommandLine(baseUrl: string, accounts: FixtureAccounts, options: { readLimit?: number } = {}): string {
  const flags = fixtureNames.map((name) => `${fixtureDescriptions[name].flag} ${accounts.fixtures[name]}`);
  // Enough requests to pass the read limit (the default one unless told), for the rate-limit check:
  // twice it, since the window slides and the budget comes back while the check spends it.
  const probe = (options.readLimit ?? defaultRateLimits.read.limit) * 2;
  return ['npx marketkit conformance', `--base-url ${baseUrl}`, ...flags, `--published-asset ${accounts.publishedAssetId}`, `--rate-limit-probe ${probe}`].join(' ');
}
