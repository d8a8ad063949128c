import { Type, type Static } from '@sinclair/typebox';
import { sellerStatuses } from '../domain/accounts.js';
import { Nullable, Strict, StringEnum, Timestamp, Uuid, WebLink, WebUrl, rule } from './common.js';
import { MultiLine, SingleLine } from './text.js';

export const socialKeys = ['twitter', 'youtube', 'twitch', 'tiktok', 'discord', 'github', 'website'] as const;

const SocialLink = Nullable(WebLink(200));

export const SocialsSchema = Strict(Object.fromEntries(socialKeys.map((key) => [key, SocialLink])) as Record<
  (typeof socialKeys)[number],
  typeof SocialLink
>);

export const HireSchema = Strict({
  available: Type.Boolean(),
  rate: Nullable(SingleLine({ maxLength: 100 })),
  contact: Nullable(WebLink(200, 'How to reach you: a handle, an email address or an http or https URL; no other URL scheme.')),
});

export const ProfileSchema = Strict(
  {
    id: Uuid(),
    username: Type.String(),
    display_name: Nullable(Type.String()),
    bio: Nullable(Type.String()),
    website: Nullable(Type.String()),
    avatar_url: Nullable(Type.String()),
    country: Nullable(Type.String()),
    is_seller: Type.Boolean(),
    seller_status: StringEnum(sellerStatuses),
    is_restricted: Type.Boolean(),
    payouts_connected: Type.Boolean(),
    subscription_tier: Type.String(),
    socials: SocialsSchema,
    hire: HireSchema,
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { $id: 'Profile' },
);
export type Profile = Static<typeof ProfileSchema>;

export const ProfileUpdateBody = Strict(
  {
    display_name: Type.Optional(Nullable(SingleLine({ maxLength: 80 }))),
    bio: Type.Optional(Nullable(MultiLine({ maxLength: 1000 }))),
    website: Type.Optional(Nullable(WebUrl(200))),
    socials: Type.Optional(Type.Partial(SocialsSchema)),
    hire: Type.Optional(Type.Partial(HireSchema)),
    country: Type.Optional(
      Nullable(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2, for example DE or US.', [rule]: 'an ISO 3166-1 alpha-2 code such as DE or US' })),
    ),
  },
  { minProperties: 1 },
);
export type ProfileUpdateBody = Static<typeof ProfileUpdateBody>;
