import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import type { Scope } from '../domain/scopes.js';
import type { ClockPort } from '../ports/clock.js';
import type { IdsPort } from '../ports/ids.js';
import type { SessionVerifierPort, VerifiedSession } from '../ports/auth.js';
import { scopesOfClaims } from './jwt.js';

/** Issuer and audience of the sessions this server makes by exchanging developer tokens. */
export const ownIssuer = 'urn:marketkit:session';
const algorithm = 'ES256';
export const exchangedSessionSeconds = 3600;

export interface SessionKeys {
  /** A session JWT for the account, holding exactly `scopes`, tied to the developer token it came from. */
  issue(grant: { accountId: string; scopes: readonly Scope[]; developerTokenId: string; notAfterMs: number | null }): Promise<{ jwt: string; expiresIn: number }>;
  /** The public keys, as served at /api/v1/.well-known/jwks.json. */
  jwks(): Promise<{ keys: JWK[] }>;
  /** Accepts this server's own sessions. */
  verifier: SessionVerifierPort;
}

/** A new ES256 private key as a JWK, for `sessionKey` (the CLI keeps one with the data). */
export async function generateSessionKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(algorithm, { extractable: true });
  return { ...(await exportJWK(privateKey)), alg: algorithm };
}

/**
 * The server's signing key for exchanged sessions: the configured private JWK, or one generated
 * for this process (sessions then end with it).
 */
export function createSessionKeys(configured: JWK | undefined, clock: ClockPort, ids: IdsPort): SessionKeys {
  const loaded = (async () => {
    const privateJwk = configured ?? (await generateSessionKey());
    const { d: _private, ...publicJwk } = privateJwk;
    const kid = await calculateJwkThumbprint(publicJwk);
    return {
      kid,
      privateKey: await importJWK(privateJwk, algorithm),
      publicKey: await importJWK(publicJwk, algorithm),
      publicJwk: { ...publicJwk, kid, alg: algorithm, use: 'sig' } as JWK,
    };
  })();

  return {
    async issue({ accountId, scopes, developerTokenId, notAfterMs }) {
      const keys = await loaded;
      const nowMs = clock.now();
      // A session never outlives the token it was exchanged for.
      const expMs = Math.min(nowMs + exchangedSessionSeconds * 1000, notAfterMs ?? Infinity);
      const expiresIn = Math.max(0, Math.floor((expMs - nowMs) / 1000));
      const now = Math.floor(nowMs / 1000);
      const jwt = await new SignJWT({ scope: scopes.join(' '), tid: developerTokenId })
        .setProtectedHeader({ alg: algorithm, kid: keys.kid, typ: 'JWT' })
        .setIssuer(ownIssuer)
        .setAudience(ownIssuer)
        .setSubject(accountId)
        .setIssuedAt(now)
        .setExpirationTime(now + expiresIn)
        .setJti(ids.uuid())
        .sign(keys.privateKey);
      return { jwt, expiresIn };
    },
    async jwks() {
      return { keys: [(await loaded).publicJwk] };
    },
    verifier: {
      async verify(credential): Promise<VerifiedSession | null> {
        try {
          const keys = await loaded;
          const { payload } = await jwtVerify(credential, keys.publicKey, {
            issuer: ownIssuer,
            audience: ownIssuer,
            algorithms: [algorithm],
            currentDate: new Date(clock.now()),
            requiredClaims: ['exp', 'sub', 'tid'],
          });
          if (typeof payload.sub !== 'string' || typeof payload.tid !== 'string') return null;
          return { accountId: payload.sub, scopes: scopesOfClaims(payload), developerTokenId: payload.tid };
        } catch {
          // Not a session this server signed, or one expired: 401. A key that failed to load fails issue() too, where onError hears of it.
          return null;
        }
      },
    },
  };
}
