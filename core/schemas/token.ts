import { Type, type Static } from '@sinclair/typebox';
import { scopes } from '../domain/scopes.js';
import { Nullable, Strict, StringEnum, Timestamp, Uuid } from './common.js';

export const ScopeSchema = StringEnum(scopes);

export const TokenSchema = Strict(
  {
    id: Uuid(),
    name: Type.String(),
    prefix: Type.String({ description: 'The first 12 characters of the token.' }),
    scopes: Type.Array(ScopeSchema),
    created_at: Timestamp(),
    last_used_at: Nullable(Timestamp('Kept to within a minute.')),
    expires_at: Nullable(Timestamp()),
  },
  { $id: 'Token' },
);
export type Token = Static<typeof TokenSchema>;

export const TokenListSchema = Strict({ data: Type.Array(TokenSchema) }, { $id: 'TokenList' });

export const RevokeTokenQuery = Strict({ id: Uuid('The id of the token to revoke.') });
export type RevokeTokenQuery = Static<typeof RevokeTokenQuery>;

export const RevokeTokenResultSchema = Strict(
  { success: Type.Literal(true), id: Uuid(), revoked_at: Timestamp() },
  { $id: 'RevokeTokenResult' },
);
