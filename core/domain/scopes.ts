/**
 * The six scopes of the spec (section 5), then Creator Studio's two (our extension, docs/studio.md):
 * studio:read lists, reads and exports projects; studio:write creates, changes, moves, deletes and
 * imports; then the webhooks' two (our extension, docs/webhooks.md): webhooks:read lists endpoints
 * and their deliveries; webhooks:write creates, changes, rotates, tests, redelivers and deletes.
 * A new developer token holds the extensions' scopes only when asked for; a session JWT holds all.
 */
export const scopes = [
  'profile:read',
  'profile:write',
  'assets:read',
  'assets:write',
  'tokens:read',
  'tokens:revoke',
  'studio:read',
  'studio:write',
  'webhooks:read',
  'webhooks:write',
] as const;
export type Scope = (typeof scopes)[number];

/** What a new developer token holds unless more is asked for (contract, Tokens). */
export const defaultTokenScopes: readonly Scope[] = ['profile:read', 'assets:read', 'assets:write'];

/** What a session JWT without a `scope` claim holds. */
export const allScopes: readonly Scope[] = scopes;

export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}
