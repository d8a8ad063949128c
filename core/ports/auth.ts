import type { Scope } from '../domain/scopes.js';

/** A verified session: whose it is and what it may do. */
export interface VerifiedSession {
  accountId: string;
  scopes: readonly Scope[];
  /**
   * Set for a session made by exchanging a developer token: the token's id. The session then
   * lives only as long as the token: authentication checks the token on every request.
   */
  developerTokenId?: string;
}

/**
 * Verifies bearer credentials that are not developer tokens (session JWTs). Returns null when the
 * credential is not valid for this verifier; never throws for a bad credential.
 */
export interface SessionVerifierPort {
  verify(credential: string): Promise<VerifiedSession | null>;
}
