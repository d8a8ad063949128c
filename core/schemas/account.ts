import { Type, type Static } from '@sinclair/typebox';
import { sellerStatuses, usernamePattern, usernameRule } from '../domain/accounts.js';
import { Nullable, Strict, StringEnum, rule } from './common.js';
import { SingleLine } from './text.js';

/**
 * The account as the marketplace sets it: the one shape for admin.createAccount and
 * admin.updateAccount, the admin surface's POST /accounts/{account} and the test kit's seed.
 */
export const accountSettings = {
  seller_status: Type.Optional(StringEnum(sellerStatuses, { description: 'approved makes the account a seller.' })),
  is_restricted: Type.Optional(Type.Boolean({ description: 'A restricted account cannot create or change listings.' })),
  is_suspended: Type.Optional(Type.Boolean({ description: 'A suspended account is refused on every authenticated call.' })),
  is_moderator: Type.Optional(Type.Boolean({ description: 'A moderator acts on the review queue in the dashboard.' })),
  is_operator: Type.Optional(Type.Boolean({ description: 'An operator manages accounts and roles in the dashboard, and is a moderator too.' })),
  payouts_connected: Type.Optional(Type.Boolean({ description: 'Paid listings need connected payouts.' })),
  subscription_tier: Type.Optional(SingleLine({ minLength: 1, maxLength: 40, description: 'The plan tier’s name, for example free or pro.' })),
  plan_features: Type.Optional(
    Type.Array(SingleLine({ minLength: 1, maxLength: 60 }), { maxItems: 50, description: 'The plan’s features, replacing the list; scheduled_publishing allows scheduled listings.' }),
  ),
};

const identity = {
  username: Type.String({ pattern: usernamePattern.source, [rule]: usernameRule, description: `The account's name, permanent: ${usernameRule}.` }),
  display_name: Type.Optional(Nullable(SingleLine({ maxLength: 80, description: 'The name buyers see; default none.' }))),
};

/** A new account (admin.createAccount); the seed of marketkit/testing adds its token's scopes. */
export const AccountInputSchema = Strict({ ...identity, ...accountSettings });
export type AccountInput = Static<typeof AccountInputSchema>;

/** Changes to an account (admin.updateAccount): anything but its username. */
export const AccountUpdateSchema = Strict({ display_name: identity.display_name, ...accountSettings });
export type AccountUpdate = Static<typeof AccountUpdateSchema>;

/** The admin surface's POST /accounts/{account}: the settings, at least one. */
export const AccountChangesBody = Strict(accountSettings, { minProperties: 1 });
