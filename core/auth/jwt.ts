import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWK } from 'jose';
import * as v from 'valibot';
import { allScopes, isScope, type Scope } from '../domain/scopes.js';
import type { ClockPort } from '../ports/clock.js';
import type { SessionVerifierPort, VerifiedSession } from '../ports/auth.js';

const hmac = ['HS256', 'HS384', 'HS512'] as const;
const asymmetric = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;

/**
 * One identity provider whose session JWTs MarketKit accepts. Exactly one key source: a JWKS URL
 * (fetched and cached by jose, refetched when an unknown key id appears, so rotation just works),
 * static public keys, or an HMAC secret (as Supabase-style projects sign).
 */
export const JwtIssuerSchema = v.pipe(
  v.object({
    issuer: v.pipe(v.string(), v.minLength(1, 'issuer must not be empty')),
    audience: v.optional(v.union([v.string(), v.array(v.string())])),
    jwksUrl: v.optional(v.pipe(v.string(), v.url('jwksUrl must be an absolute URL'))),
    publicKeys: v.optional(v.array(v.looseObject({ kty: v.string() }, 'publicKeys must be JWKs'))),
    secret: v.optional(v.pipe(v.string(), v.check((s) => new TextEncoder().encode(s).byteLength >= 32, 'secret must be at least 32 bytes: a short HMAC secret can be guessed'))),
    algorithms: v.optional(v.pipe(v.array(v.picklist([...hmac, ...asymmetric], 'algorithms must be JWS algorithms; "none" is never accepted')), v.minLength(1))),
    clockToleranceSeconds: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(300)), 30),
    /** The least time between two JWKS fetches for unknown key ids: a flood of made-up kids cannot hammer the provider. */
    jwksCooldownSeconds: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(3600)), 30),
  }),
  v.check((c) => [c.jwksUrl, c.publicKeys, c.secret].filter((k) => k !== undefined).length === 1, 'give exactly one of jwksUrl, publicKeys or secret'),
  v.check(
    (c) => (c.secret ? (c.algorithms ?? ['HS256']).every((a) => (hmac as readonly string[]).includes(a)) : (c.algorithms ?? []).every((a) => !(hmac as readonly string[]).includes(a))),
    'algorithms must match the key: HS* with a secret only, never with public keys (an HMAC checked with a public key is forgeable)',
  ),
);
export type JwtIssuer = v.InferInput<typeof JwtIssuerSchema>;

/** The scopes a session holds: all six without a `scope` claim, else the known ones it names. */
export function scopesOfClaims(payload: JWTPayload): Scope[] {
  const claim = payload.scope ?? payload.scp;
  if (claim === undefined) return [...allScopes];
  const names = Array.isArray(claim) ? claim : typeof claim === 'string' ? claim.split(/\s+/) : [];
  return names.filter((name): name is Scope => typeof name === 'string' && isScope(name));
}

type KeySource = Parameters<typeof jwtVerify>[1];

/**
 * A session verifier for one issuer. It looks at the unverified `iss` only to tell whether the
 * token is this issuer's; everything else is decided by the signature check, with `iss`, `aud`,
 * `exp` (required), `nbf` and the algorithm allow-list enforced.
 */
export function jwtSessionVerifier(input: JwtIssuer, clock: ClockPort): SessionVerifierPort {
  const config = v.parse(JwtIssuerSchema, input);
  const algorithms = config.algorithms ?? (config.secret ? ['HS256'] : ['RS256', 'ES256', 'EdDSA', 'Ed25519']);
  const key: KeySource = config.jwksUrl
    ? createRemoteJWKSet(new URL(config.jwksUrl), { cooldownDuration: config.jwksCooldownSeconds * 1000, cacheMaxAge: 600_000 })
    : config.publicKeys
      ? createLocalJWKSet({ keys: config.publicKeys as JWK[] } as JSONWebKeySet)
      : new TextEncoder().encode(config.secret!);
  return {
    async verify(credential): Promise<VerifiedSession | null> {
      let claimed: JWTPayload;
      try {
        claimed = decodeJwt(credential);
      } catch {
        // Not a JWT: no session of this issuer (another verifier, or a developer token, may know it).
        return null;
      }
      if (claimed.iss !== config.issuer) return null;
      try {
        const { payload } = await jwtVerify(credential, key as Uint8Array, {
          issuer: config.issuer,
          ...(config.audience ? { audience: config.audience } : {}),
          algorithms,
          clockTolerance: config.clockToleranceSeconds,
          currentDate: new Date(clock.now()),
          requiredClaims: ['exp', 'sub'],
        });
        if (typeof payload.sub !== 'string' || payload.sub === '') return null;
        return { accountId: payload.sub, scopes: scopesOfClaims(payload) };
      } catch {
        // Refused alike whatever failed (signature, expiry, a claim, the issuer's JWKS out of reach): 401, and nothing of why to the client.
        return null;
      }
    },
  };
}
