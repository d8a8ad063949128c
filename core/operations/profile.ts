import { Type } from '@sinclair/typebox';
import { ProfileSchema, ProfileUpdateBody } from '../schemas/profile.js';
import { ApiError, invalidInput } from '../errors.js';
import { isAssignedCountry } from '../domain/countries.js';
import { defineOperation, nowIso } from './context.js';
import { profileView } from '../views.js';

export const getProfile = defineOperation({
  name: 'getProfile',
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
