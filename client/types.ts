/**
 * The wire types of the typed client, derived from the TypeBox schemas the server validates with
 * (core/schemas): one definition, so a field the server adds or renames breaks the client's
 * type-check, not its users. Type-only imports: the client bundle carries no schema code.
 */
import type { Static } from '@sinclair/typebox';
import type * as schemas from '../core/schemas/index.js';
import type { JwksSchema, SessionSchema } from '../core/http/auth-routes.js';
import type { listCategories } from '../core/operations/categories.js';

export type Asset = Static<typeof schemas.AssetSchema>;
export type AssetDetail = Static<typeof schemas.AssetDetailSchema>;
export type AssetList = Static<typeof schemas.AssetListSchema>;
export type AssetListQuery = Static<typeof schemas.AssetListQuery>;
export type AssetCounts = Static<typeof schemas.AssetCountsSchema>;
export type AssetStatus = Static<typeof schemas.AssetStatusSchema>;
export type AssetCreateBody = Static<typeof schemas.AssetCreateBody>;
export type AssetUpdateBody = Static<typeof schemas.AssetUpdateBody>;
export type BatchResult = Static<typeof schemas.BatchResultSchema>;
export type DeleteAssetResult = Static<typeof schemas.DeleteAssetResultSchema>;
export type Category = Static<typeof schemas.CategorySchema>;
export type CategoryList = Static<(typeof listCategories)['output']>;
export type UploadUrl = Static<typeof schemas.UploadUrlSchema>;
export type UploadUrlBody = Static<typeof schemas.UploadUrlBody>;
export type ConfirmFileBody = Static<typeof schemas.ConfirmFileBody>;
export type ImageUploadUrl = Static<typeof schemas.ImageUploadUrlSchema>;
export type ConfirmFileResult = Static<typeof schemas.ConfirmFileResultSchema>;
export type ConfirmImageResult = Static<typeof schemas.ConfirmImageResultSchema>;
export type ArrangedImages = Static<typeof schemas.ArrangedImagesSchema>;
export type SubmitResult = Static<typeof schemas.SubmitResultSchema>;
export type Profile = Static<typeof schemas.ProfileSchema>;
export type ProfileUpdateBody = Static<typeof schemas.ProfileUpdateBody>;
export type Token = Static<typeof schemas.TokenSchema>;
export type TokenList = Static<typeof schemas.TokenListSchema>;
export type RevokeTokenResult = Static<typeof schemas.RevokeTokenResultSchema>;
export type Health = Static<typeof schemas.HealthSchema>;
export type Session = Static<typeof SessionSchema>;
export type Jwks = Static<typeof JwksSchema>;
export type WebhookEndpoint = Static<typeof schemas.WebhookEndpointSchema>;
/** An endpoint as created or with a rotated secret: the only answers that show the secret. */
export type WebhookEndpointWithSecret = Static<typeof schemas.WebhookEndpointWithSecretSchema>;
export type WebhookEndpointList = Static<typeof schemas.WebhookEndpointListSchema>;
export type WebhookCreateBody = Static<typeof schemas.WebhookCreateBody>;
export type WebhookUpdateBody = Static<typeof schemas.WebhookUpdateBody>;
export type DeleteWebhookResult = Static<typeof schemas.DeleteWebhookResultSchema>;
export type WebhookDelivery = Static<typeof schemas.WebhookDeliverySchema>;
export type WebhookDeliveryList = Static<typeof schemas.WebhookDeliveryListSchema>;
/** listWebhookDeliveries' filters: the query fields beside the endpoint. */
export type WebhookDeliveryListQuery = Omit<Static<typeof schemas.WebhookDeliveryListQuery>, 'endpoint_id'>;
