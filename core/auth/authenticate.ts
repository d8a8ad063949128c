import { ApiError, isApiError } from '../errors.js';
import { clientKey, failureBudget, takeRate } from '../pipeline/rate-limit.js';
import type { RequestClass } from '../ports/rate-limit.js';
import { hasValidChecksum, hashToken, looksLikeDeveloperToken } from '../domain/tokens.js';
import type { Caller, PortsWith } from '../operations/context.js';
import type { AccountsPort } from '../ports/storage.js';

/** What authentication uses: the accounts and their tokens, what was read of them, the session verifiers, the failure budget's limiter, the clock. */
export type AuthPorts = PortsWith<Pick<AccountsPort, 'findTokenByHash' | 'getAccount' | 'getToken' | 'touchToken'>, 'clock' | 'reads' | 'sessions' | 'rateLimiter' | 'metrics'>;
import type { VerifiedSession } from '../ports/auth.js';
import type { TokenRecord } from '../ports/storage.js';

/** Longer Authorization headers are refused before any parsing or verification. */
const maxAuthorizationLength = 8192;
/** last_used_at is kept to within this; a token used more often is not written on every request. */
const touchIntervalMs = 60_000;

/** The token if it can be used now: it exists, is not revoked and has not expired; else 401. */
async function usableToken(ports: AuthPorts, token: TokenRecord | null, now: number): Promise<TokenRecord> {
  if (!token || token.revoked_at) throw unauthorized('This token is not valid or has been revoked.');
  if (token.expires_at && Date.parse(token.expires_at) <= now) throw unauthorized('This token has expired.');
  return token;
}

export const bearerChallenge = { 'www-authenticate': 'Bearer' };

function unauthorized(message = 'A valid token is required: send Authorization: Bearer <token>.'): ApiError {
  return new ApiError('UNAUTHORIZED', message, { headers: bearerChallenge });
}

/** The bearer credential of an Authorization header, or null. Tokens in the query string are never read. */
export function bearerCredential(header: string | undefined | null): string | null {
  if (!header || header.length > maxAuthorizationLength) return null;
  const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
  return match ? match[1]! : null;
}

/** A developer token's caller as last read, with what must still be checked on each use. */
interface KnownToken {
  caller: Caller;
  /** When the token expires (ms), or Infinity. */
  expiresAt: number;
  /** When its last use was recorded (ms), or -Infinity. */
  lastUsedAt: number;
}

/** Callers by developer token, until accounts or tokens change (a revocation or suspension is a change). */
const knownTokenBounds = { maxEntries: 10_000, follows: 'callers' } as const;

/** What authentication reads of a request: its Authorization header and the client's address. */
export interface CredentialSource {
  header(name: string): string | undefined;
  clientAddress?: string | undefined;
}

/**
 * Who is calling, from the Authorization header: a developer token (by hash) or a session accepted
 * by one of the session verifiers. 401 for anything missing, malformed, unknown, revoked or
 * expired; 403 FORBIDDEN for a suspended account (contract: 401, then 403). `stamp` is the
 * request's read-cache stamp (core/read-cache.ts): a token seen since the last change of storage
 * is not looked up again, but its expiry, its last use and its account's suspension are checked
 * on every request all the same.
 *
 * A credential that fails (every 401 but the one for no credential at all) is charged to the
 * client address's failure budget; past it, 429 RATE_LIMITED comes before the credential is
 * looked at, whether it is right or wrong (core/pipeline/rate-limit.ts, FailureBudget). The success
 * path costs one peek at that budget, and no write.
 */
export async function authenticate(ports: AuthPorts, request: CredentialSource, stamp?: number): Promise<Caller> {
  const caller = await identifyCaller(ports, request, stamp);
  refuseSuspended(caller);
  return caller;
}

/** 403 for a suspended account (after authentication, contract: 401, then 403). */
export function refuseSuspended(caller: Caller, headers?: Record<string, string>): void {
  if (caller.account.is_suspended) throw new ApiError('FORBIDDEN', 'This account is suspended.', headers ? { headers } : undefined);
}

/**
 * authenticate, then the caller's rate limit: the caller and the RateLimit-* headers of its
 * answer. A suspended account is counted like any caller, and its 403 carries the headers too
 * (contract: on every authenticated response).
 */
export async function authenticateAndTake(
  ports: AuthPorts,
  request: CredentialSource,
  requestClass: RequestClass,
  stamp?: number,
): Promise<{ caller: Caller; rateHeaders: Record<string, string> }> {
  const caller = await identifyCaller(ports, request, stamp);
  const rateHeaders = await takeRate(ports, caller, requestClass);
  refuseSuspended(caller, rateHeaders);
  return { caller, rateHeaders };
}

/** Who the credential names, suspended or not: authenticate without the suspension check. */
export async function identifyCaller(ports: AuthPorts, request: CredentialSource, stamp?: number): Promise<Caller> {
  const credential = bearerCredential(request.header('authorization'));
  // No credential is no guess: 401, and nothing charged.
  if (!credential) throw unauthorized();
  if (stamp === undefined) {
    const observed = ports.reads.observe();
    stamp = typeof observed === 'number' ? observed : await observed;
  }
  const now = ports.clock.now();
  const knownTokens = ports.reads.area<KnownToken>('tokens', knownTokenBounds);
  const known = knownTokens.get(credential, stamp);
  const usable = known !== undefined && known.expiresAt > now;
  const budget = failureBudget(ports);
  const address = clientKey(request);
  const admitted = budget.admit(address, now, !usable);
  const release = admitted instanceof Promise ? await admitted : admitted;
  let caller: Caller;
  try {
    if (usable) {
      if (now - known.lastUsedAt >= touchIntervalMs) {
        await ports.storage.touchToken(known.caller.tokenId!, new Date(now).toISOString());
        // Kept with the use just recorded: a store whose callers' version a touch does not move
        // (SQLite, PostgreSQL) would touch the token on every request otherwise.
        knownTokens.set(credential, { ...known, lastUsedAt: now }, stamp);
      }
      caller = known.caller;
    } else {
      caller = await checkCredential(ports, credential, known, now, stamp);
    }
  } catch (error) {
    // Charged before the check lets the next one from this address in (finally, below).
    if (isApiError(error) && error.code === 'UNAUTHORIZED') await budget.fail(address, now, error);
    throw error;
  } finally {
    release();
  }
  return caller;
}

/** The caller a credential names, looked up or verified; 401 when it names none. */
async function checkCredential(ports: AuthPorts, credential: string, known: KnownToken | undefined, now: number, stamp: number): Promise<Caller> {
  if (known) throw unauthorized('This token has expired.');
  if (looksLikeDeveloperToken(credential)) {
    // A typo or a forged token fails here, without a look-up.
    if (!hasValidChecksum(credential)) throw unauthorized('This token is not valid.');
    const token = await ports.storage.findTokenByHash(await hashToken(credential));
    const usable = await usableToken(ports, token, now);
    const account = await ports.storage.getAccount(usable.account_id);
    if (!account) throw unauthorized('This token is not valid.');
    const caller: Caller = { account, scopes: new Set(usable.scopes), tokenId: usable.id, credential: 'developer-token' };
    let lastUsedAt = usable.last_used_at ? Date.parse(usable.last_used_at) : -Infinity;
    if (now - lastUsedAt >= touchIntervalMs) {
      await ports.storage.touchToken(usable.id, new Date(now).toISOString());
      lastUsedAt = now;
    }
    ports.reads.area<KnownToken>('tokens', knownTokenBounds).set(credential, { caller, expiresAt: usable.expires_at ? Date.parse(usable.expires_at) : Infinity, lastUsedAt }, stamp);
    return caller;
  }
  let session: VerifiedSession | null = null;
  for (const verifier of ports.sessions) {
    session = await verifier.verify(credential);
    if (session) break;
  }
  if (!session) throw unauthorized('This token is not valid.');
  if (session.developerTokenId) {
    // An exchanged session lives exactly as long as its developer token: checked on every request, never cached.
    const token = await usableToken(ports, await ports.storage.getToken(session.developerTokenId), now);
    if (token.account_id !== session.accountId) throw unauthorized('This token is not valid.');
  }
  const account = await ports.storage.getAccount(session.accountId);
  if (!account) throw unauthorized('This session belongs to no account.');
  return { account, scopes: new Set(session.scopes), tokenId: session.developerTokenId ?? null, credential: 'session' };
}
