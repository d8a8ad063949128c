/**
 * The wire types of the typed client, derived from the TypeBox schemas the server validates with
 * (core/schemas): one definition, so a field the server adds or renames breaks the client's
 * type-check, not its users. Type-only imports: the client bundle carries no schema code.
 */
import type { Static } from '@sinclair/typebox';
import type * as schemas from '../core/schemas/index.js';
import type { SessionSchema } from '../core/http/auth-routes.js';
import type { listCategories } from '../core/operations/categories.js';

export type Asset = Static<typeof schemas.AssetSchema>;
export type AssetDetail = Static<typeof schemas.AssetDetailSchema>;
export type AssetList = Static<typeof schemas.AssetListSchema>;
export type AssetListQuery = Static<typeof schemas.AssetListQuery>;
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
export type SubmitResult = Static<typeof schemas.SubmitResultSchema>;
export type Profile = Static<typeof schemas.ProfileSchema>;
export type ProfileUpdateBody = Static<typeof schemas.ProfileUpdateBody>;
export type Token = Static<typeof schemas.TokenSchema>;
export type TokenList = Static<typeof schemas.TokenListSchema>;
export type RevokeTokenResult = Static<typeof schemas.RevokeTokenResultSchema>;
export type Health = Static<typeof schemas.HealthSchema>;
export type Session = Static<typeof SessionSchema>;
