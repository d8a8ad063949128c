import { Type } from '@sinclair/typebox';
import { reasonMaxLength } from '../moderation/moderation.js';
import { AssetSchema, CategorySchema } from '../schemas/asset.js';
import { Cursor, Nullable, Offset, Strict, Timestamp, Uuid, rule } from '../schemas/common.js';
import { ProfileSchema } from '../schemas/profile.js';
import { MultiLine, SingleLine } from '../schemas/text.js';
import { TokenSchema } from '../schemas/token.js';
import { VersionSchema } from '../schemas/version.js';
import { WebhookDeliverySchema, WebhookEndpointSchema } from '../schemas/webhook.js';

/** The wire schemas of the admin surface (core/admin/actions.ts); they also make its OpenAPI document. */

export const Reason = MultiLine({ minLength: 1, maxLength: reasonMaxLength, description: 'Why; the seller sees it in `review.reason`.' });
export const ReasonBody = Strict({ reason: Reason });
export const CategoryCreateBody = Strict({
  slug: Type.String({ pattern: '^[a-z0-9-]{1,100}$', [rule]: 'lowercase letters, digits and hyphens (1 to 100)', description: 'Permanent; lowercase letters, digits and hyphens.' }),
  name: SingleLine({ minLength: 1, maxLength: 100, description: 'What sellers see.' }),
});
export const CategoryRenameBody = Strict({ name: SingleLine({ minLength: 1, maxLength: 100, description: 'The new name.' }) });
/** A page's limit and offset, their defaults filled in. */
/** How many items an admin page has when the query does not say. */
export const adminPageDefault = 50;
export const PageQuery = Strict({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: adminPageDefault, description: 'How many (1 to 100, default 50).' })),
  offset: Type.Optional(Offset({ description: 'How many to skip (not with cursor).', default: 0 })),
  cursor: Type.Optional(Cursor()),
});
/** What a cursored admin list answers beside its items (core/operations/list-cursor.ts, readPage). */
export const pageFields = {
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer({ description: 'The offset the page was read at; 0 on a cursor page.' }),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String({ description: 'Pass as cursor for the next page; null on the last page.' })),
};

export const AdminAccountSchema = Strict(
  {
    ...ProfileSchema.properties,
    is_suspended: Type.Boolean(),
    is_moderator: Type.Boolean({ description: 'Acts on the review queue in the dashboard.' }),
    is_operator: Type.Boolean({ description: 'Manages accounts and roles in the dashboard (a moderator too).' }),
    plan_features: Type.Array(Type.String()),
    storage_bytes: Type.Integer({ minimum: 0, description: "The bytes the account's uploads hold (files and images, confirmed or waiting for confirm)." }),
    storage_quota_bytes: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'The per-account storage quota (storageQuotaBytes), or null for none.' }),
  },
  { $id: 'AdminAccount' },
);
export const AccountListSchema = Strict(
  { data: Type.Array(AdminAccountSchema), ...pageFields },
  { $id: 'AdminAccountList' },
);
export const ReleasedSchema = Strict(
  { released: Type.Array(AssetSchema), versions: Type.Array(VersionSchema, { description: 'Scheduled versions whose release_at came, now live.' }) },
  { $id: 'Released' },
);
export const CategoryListSchema = Strict({ data: Type.Array(CategorySchema) }, { $id: 'CategoryList' });
export const AdminTokenListSchema = Strict({ data: Type.Array(TokenSchema) }, { $id: 'AdminTokenList' });
export const AdminWebhooksSchema = Strict(
  {
    endpoints: Type.Array(WebhookEndpointSchema, { description: 'Every endpoint of the account, newest first (never a secret).' }),
    failing: Type.Array(WebhookDeliverySchema, { description: 'Its deliveries that are retrying or failed, newest first, at most 50.' }),
    failing_total: Type.Integer({ minimum: 0 }),
  },
  { $id: 'AdminWebhooks' },
);
export const RevokedSchema = Strict({ success: Type.Literal(true), id: Uuid(), revoked_at: Timestamp() }, { $id: 'AdminRevokeTokenResult' });
