import { Type } from '@sinclair/typebox';
import { ProfileSchema, ProfileUpdateBody } from '../schemas/profile.js';
import { ApiError, invalidInput } from '../errors.js';
import { isAssignedCountry } from '../domain/countries.js';
import { defineOperation, nowIso } from './context.js';
import { reads, replaces } from './declaration.js';
import { profileView } from '../views.js';

export const getProfile = defineOperation({
  name: 'getProfile',
  rest: { method: 'GET', path: '/me', tag: 'Profile' },
  tool: {
    name: 'get_my_profile',
    title: 'Read my profile',
    description:
      "The profile of the token's account: username, seller_status (only approved sellers can create listings), " +
      'is_restricted, payouts_connected (a paid listing needs it before submit_asset) and subscription_tier.',
    annotations: reads,
  },
  readsStorageOnly: true,
  summary: "Read the caller's profile",
  scope: 'profile:read',
  errors: [],
  requestClass: 'read',
  input: Type.Object({}, { additionalProperties: false }),
  output: ProfileSchema,
  async run(ctx) {
    return profileView(ctx.caller.account);
  },
});

export const updateProfile = defineOperation({
  name: 'updateProfile',
  rest: { method: 'PATCH', path: '/me', tag: 'Profile' },
  tool: {
    name: 'update_my_profile',
    title: 'Update my seller profile',
    description: 'Changes the fields sent of your public seller profile: display_name, bio, website, socials, hire details, country.',
    annotations: replaces,
    localOnly: true,
  },
  summary: "Update the caller's profile",
  description: 'Only the fields sent change; within socials and hire, only the keys sent change.',
  scope: 'profile:write',
  errors: [],
  requestClass: 'write',
  input: ProfileUpdateBody,
  output: ProfileSchema,
  async run(ctx, input) {
    if (input.country != null && !isAssignedCountry(input.country)) {
      throw invalidInput('country', `must be an assigned ISO 3166-1 alpha-2 code such as DE or US; ${input.country} is not one`);
    }
    const current = ctx.caller.account;
    const { socials, hire, ...plain } = input;
    const updated = await ctx.ports.storage.updateAccount(current.id, {
      ...plain,
      ...(socials ? { socials: { ...current.socials, ...socials } } : {}),
      ...(hire ? { hire: { ...current.hire, ...hire } } : {}),
      updated_at: nowIso(ctx),
    });
    if (!updated) throw new ApiError('UNAUTHORIZED', 'The account of this token no longer exists.');
    return profileView(updated);
  },
});

/** The family's operations, in the order REST lists them and MCP offers their tools. */
export const profileOperations = [getProfile, updateProfile];
