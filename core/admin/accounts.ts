import * as v from 'valibot';
import { ConfigurationError } from '../errors.js';
import { defaultTokenScopes, scopes as allScopeNames, type Scope } from '../domain/scopes.js';
import { displayPrefixLength, formatToken, hashToken } from '../domain/tokens.js';
import type { Ports, PortsWith, Settings } from '../operations/context.js';
import { issueSignInLink } from './sign-in-links.js';

/** What the operator's account functions use: accounts and tokens, categories, ids and the clock. */
export type AdminPorts = PortsWith<Pick<AccountsPort, 'insertAccount' | 'updateAccount' | 'getAccount' | 'insertToken'> & Pick<CategoriesPort, 'insertCategory'>, 'clock' | 'ids'>;
import { categoryView, profileView, tokenView } from '../views.js';
import { AccountInputSchema, AccountUpdateSchema, type AccountInput, type AccountUpdate } from '../schemas/account.js';
import type { Profile } from '../schemas/profile.js';
import type { Category } from '../schemas/asset.js';
import type { Token } from '../schemas/token.js';
import type { AccountChanges, AccountRecord, AccountsPort, CategoriesPort } from '../ports/storage.js';
import { checkWithSchema, parseOptions } from '../options.js';
import { isSingleLine } from '../schemas/text.js';

export type { AccountInput, AccountUpdate };

const TokenInput = v.object({
  accountId: v.string(),
  name: v.pipe(
    v.string(),
    v.minLength(1, 'name must not be empty'),
    v.maxLength(100, 'name must be at most 100 characters'),
    v.check(isSingleLine, 'name must be on one line, without control or bidirectional-override characters'),
  ),
  scopes: v.optional(
    v.pipe(
      v.array(v.picklist(allScopeNames, `scopes must be among ${allScopeNames.join(', ')}`)),
      v.minLength(1, 'scopes must name at least one scope'),
    ),
  ),
  expiresAt: v.optional(v.nullable(v.date())),
});
export type TokenInput = v.InferInput<typeof TokenInput>;

const CategoryInput = v.object({
  slug: v.pipe(v.string(), v.regex(/^[a-z0-9-]{1,100}$/, 'slug must be lowercase letters, digits and hyphens')),
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
});

export interface IssuedToken {
  /** The whole token. It is shown here once and never stored: keep it. */
  token: string;
  record: Token;
}

/** What a dashboard sign-in link needs beyond AdminPorts: the marketplace's ports, its dashboard settings and its site URL. */
export interface SignInLinkContext {
  ports: Ports;
  settings: Pick<Settings, 'dashboard'>;
  siteUrl: string | null;
}

/**
 * What the embedding application does that the developer API does not: creating accounts and
 * their tokens, changing seller states, categories, sign-in links to the dashboard. Programmer
 * errors throw ConfigurationError.
 */
export function createAdmin(ports: AdminPorts, links?: SignInLinkContext) {
  const now = () => new Date(ports.clock.now()).toISOString();
  return {
    /**
     * A one-time sign-in link to the dashboard for the account (docs/dashboard.md, "Signing in"), as
     * `marketkit admin login-link` and the admin API make it: single use, for `signInLinkSeconds`.
     * `siteUrl` is the address browsers reach the marketplace at, with its mount prefix
     * (`https://example.com/market`); the marketplace's `siteUrl` by default.
     */
    async createSignInLink(input: { accountId: string; siteUrl?: string }): Promise<{ url: string; expires_at: string }> {
      const where = 'marketkit admin.createSignInLink';
      if (!links?.settings.dashboard) throw new ConfigurationError(where, 'this marketplace serves no dashboard: create it with the dashboard option (docs/dashboard.md)');
      const siteUrl = input.siteUrl ?? links.siteUrl;
      if (!siteUrl || !URL.canParse(siteUrl) || !/^https?:$/.test(new URL(siteUrl).protocol)) {
        throw new ConfigurationError(where, 'siteUrl must be the http(s) address browsers reach the marketplace at (give it here, or as createMarketplace({ siteUrl }))');
      }
      const account = await ports.storage.getAccount(input.accountId);
      if (!account) throw new ConfigurationError(where, `no account with id ${input.accountId}`);
      return issueSignInLink(links.ports, links.settings, account, siteUrl);
    },

    async createAccount(input: AccountInput): Promise<Profile & { is_suspended: boolean }> {
      const data = checkWithSchema(AccountInputSchema, input, 'marketkit admin.createAccount');
      const at = now();
      const account: AccountRecord = {
        id: ports.ids.uuid(),
        username: data.username,
        display_name: data.display_name ?? null,
        bio: null,
        website: null,
        avatar_url: null,
        country: null,
        seller_status: data.seller_status ?? 'approved',
        is_restricted: data.is_restricted ?? false,
        is_suspended: data.is_suspended ?? false,
        is_moderator: data.is_moderator ?? false,
        is_operator: data.is_operator ?? false,
        payouts_connected: data.payouts_connected ?? false,
        subscription_tier: data.subscription_tier ?? 'free',
        plan_features: [...(data.plan_features ?? [])],
        socials: { twitter: null, youtube: null, twitch: null, tiktok: null, discord: null, github: null, website: null },
        hire: { available: false, rate: null, contact: null },
        created_at: at,
        updated_at: at,
      };
      await ports.storage.insertAccount(account);
      return { ...profileView(account), is_suspended: account.is_suspended };
    },

    async updateAccount(accountId: string, changes: AccountUpdate): Promise<Profile & { is_suspended: boolean }> {
      const data = checkWithSchema(AccountUpdateSchema, changes, 'marketkit admin.updateAccount');
      const updated = await ports.storage.updateAccount(accountId, { ...(data as Partial<AccountChanges>), updated_at: now() });
      if (!updated) throw new ConfigurationError('marketkit admin.updateAccount', `no account with id ${accountId}`);
      return { ...profileView(updated), is_suspended: updated.is_suspended };
    },

    /** A new developer token for the account; the default scopes are the contract's three. */
    async createToken(input: TokenInput): Promise<IssuedToken> {
      const data = parseOptions(TokenInput, input, 'marketkit admin.createToken');
      if (!(await ports.storage.getAccount(data.accountId))) {
        throw new ConfigurationError('marketkit admin.createToken', `no account with id ${data.accountId}`);
      }
      const token = formatToken(ports.ids.randomBytes(64));
      const record = {
        id: ports.ids.uuid(),
        account_id: data.accountId,
        name: data.name,
        prefix: token.slice(0, displayPrefixLength),
        hash: await hashToken(token),
        scopes: [...new Set<Scope>(data.scopes ?? defaultTokenScopes)],
        created_at: now(),
        last_used_at: null,
        expires_at: data.expiresAt ? data.expiresAt.toISOString() : null,
        revoked_at: null,
      };
      await ports.storage.insertToken(record);
      return { token, record: tokenView(record) };
    },

    async createCategory(input: v.InferInput<typeof CategoryInput>): Promise<Category> {
      const data = parseOptions(CategoryInput, input, 'marketkit admin.createCategory');
      const category = { id: ports.ids.uuid(), ...data };
      await ports.storage.insertCategory(category);
      return categoryView(category);
    },
  };
}

export type Admin = ReturnType<typeof createAdmin>;
