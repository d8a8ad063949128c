/**
 * Passkeys' WebAuthn ceremonies (docs/dashboard.md, "Passkeys"), through @simplewebauthn/server:
 * the options a browser's navigator.credentials.create/get is given, and the verification of what it
 * answers. The relying party is the dashboard's host (`localhost` on a loopback listen: browsers
 * refuse an IP); the origin its dashboard origin, or the request's own on that host. Every challenge
 * is 32 random bytes, kept as its SHA-256 for 5 minutes and used up by the answer that carries it,
 * whether or not that answer verifies. Passkeys are discoverable (the authenticator keeps the account),
 * so signing in needs no username.
 *
 * Self sign-up (sign-up-pages.ts) enrols a passkey for a username-to-be, before its account exists:
 * its challenge is an enrolment's with no account, kept as the hash of the challenge and the
 * username together, so only an answer for that username uses it up; the passkey's user handle is
 * the username (the account's id is not known yet), which a sign-in accepts for that account.
 *
 * Only attestation `none` (or a self attestation, without certificates) is accepted: the dashboard
 * asks for none, and a certificate chain would have the library fetch its revocation lists from
 * addresses the browser chose.
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON, verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import { dashboardOrigin } from '../admin/sign-in-links.js';
import { ApiError } from '../errors.js';
import type { Exchange } from '../pipeline/frame.js';
import type { AccountRecord } from '../ports/records.js';
import type { PasskeyChallengeRecord, PasskeyPort, PasskeyRecord } from '../ports/passkeys.js';
import type { Ports } from '../operations/context.js';
import { hashOf } from './session.js';

/**
 * The library, loaded the first time a passkey is used: importing it costs about 0.6 s of start-up
 * (it loads its CBOR, ASN.1 and crypto helpers), which every `marketkit` command and every server
 * paid before, passkeys or not.
 */
let library: Promise<typeof import('@simplewebauthn/server') & typeof import('@simplewebauthn/server/helpers')> | undefined;
const webauthn = () => (library ??= Promise.all([import('@simplewebauthn/server'), import('@simplewebauthn/server/helpers')]).then(([server, helpers]) => ({ ...server, ...helpers })));

/** How long a browser has to answer a challenge. */
export const challengeMs = 5 * 60 * 1000;

/** The relying party of a request: the dashboard's host, and the origins its ceremonies may come from. */
export function relyingParty(exchange: Exchange): { id: string; origins: string[] } {
  const origin = dashboardOrigin(exchange.siteUrl);
  const id = new URL(origin).hostname;
  const own = exchange.request.origin;
  const origins = own && own !== origin && URL.canParse(own) && new URL(own).hostname === id ? [origin, own] : [origin];
  return { id, origins };
}

type Clock = Pick<Ports, 'clock' | 'ids'>;

/**
 * Who a passkey is enrolled for: a signed-in account, or (self sign-up) a username-to-be, with no id
 * yet: the verified passkey's account_id is then empty, for the caller to set once it made the account.
 */
export type Enrollee = Pick<AccountRecord, 'id' | 'username' | 'display_name'> | { id: null; username: string; display_name: null };

/** What a challenge is kept as: the hash of its base64url (what the browser signs), with the username-to-be it was handed out for, if any. */
const keyOf = (challenge: string, signUp: string | null) => hashOf(signUp === null ? challenge : `${challenge}\nsign-up:${signUp}`);

/** A new challenge's bytes, kept for `purpose` (and, enrolling, the account, or the username-to-be of a sign-up). */
async function newChallenge(port: PasskeyPort, ports: Clock, purpose: PasskeyChallengeRecord['purpose'], accountId: string | null, signUp: string | null = null): Promise<Uint8Array<ArrayBuffer>> {
  const { isoBase64URL } = await webauthn();
  const challenge = new Uint8Array(ports.ids.randomBytes(32));
  const now = ports.clock.now();
  await port.createChallenge({ hash: keyOf(isoBase64URL.fromBuffer(challenge), signUp), purpose, account_id: accountId, created_at: new Date(now).toISOString(), expires_at: new Date(now + challengeMs).toISOString() });
  return challenge;
}

/** The credential a browser sent (what its script posts, as WebAuthn's toJSON has it): 400 when it is not one. */
export function credentialOf(body: unknown): { id: string; response: Record<string, unknown> } & Record<string, unknown> {
  const sent = (body ?? {}) as { credential?: unknown };
  const credential = sent.credential as { id?: unknown; rawId?: unknown; type?: unknown; response?: { clientDataJSON?: unknown } } | undefined;
  const ok = credential && typeof credential.id === 'string' && /^[A-Za-z0-9_-]{1,1400}$/.test(credential.id) && credential.rawId === credential.id && credential.type === 'public-key';
  if (!ok || typeof credential.response !== 'object' || credential.response === null || typeof credential.response.clientDataJSON !== 'string') {
    throw new ApiError('INVALID_INPUT', 'Send {"credential": ...}: the passkey the browser answered with (PublicKeyCredential.toJSON()).');
  }
  return credential as { id: string; response: Record<string, unknown> } & Record<string, unknown>;
}

/**
 * Uses up the challenge the browser signed: its text, when it was handed out for `purpose` (and this
 * account, or this username-to-be) and has not expired; 401 otherwise (used, expired, another
 * ceremony's, or a sign-up's for another username).
 */
async function takeChallenge(port: PasskeyPort, ports: Clock, credential: { response: Record<string, unknown> }, purpose: PasskeyChallengeRecord['purpose'], accountId: string | null, signUp: string | null = null): Promise<string> {
  const { decodeClientDataJSON } = await webauthn();
  let challenge: string;
  try {
    challenge = decodeClientDataJSON(credential.response.clientDataJSON as string).challenge;
  } catch (error) {
    throw new ApiError('INVALID_INPUT', `The passkey's client data is not readable: ${(error as Error).message}`);
  }
  const kept = typeof challenge === 'string' ? await port.consumeChallenge(keyOf(challenge, signUp), new Date(ports.clock.now()).toISOString()) : null;
  if (!kept || kept.purpose !== purpose || kept.account_id !== accountId) throw new ApiError('UNAUTHORIZED', 'This passkey request has expired or was already answered: try again.');
  return challenge;
}

/** What navigator.credentials.create is given to enrol a passkey for the account (its passkeys excluded), or for a sign-up's username. */
export async function enrolmentOptions(port: PasskeyPort, ports: Clock, exchange: Exchange, account: Enrollee) {
  const existing = account.id === null ? [] : await port.listPasskeys(account.id);
  const { generateRegistrationOptions } = await webauthn();
  return generateRegistrationOptions({
    rpName: 'MarketKit dashboard',
    rpID: relyingParty(exchange).id,
    userName: account.username,
    userDisplayName: account.display_name || account.username,
    userID: new TextEncoder().encode(account.id ?? account.username),
    challenge: await newChallenge(port, ports, 'enrol', account.id, account.id === null ? account.username : null),
    timeout: challengeMs,
    attestationType: 'none',
    excludeCredentials: existing.map((passkey) => ({ id: passkey.id, transports: passkey.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
}

/** Verifies an enrolment's answer and makes the passkey (not stored yet): 400 when it does not verify. */
export async function verifyEnrolment(port: PasskeyPort, ports: Clock, exchange: Exchange, account: Enrollee, body: unknown, name: string): Promise<PasskeyRecord> {
  const credential = credentialOf(body);
  const expectedChallenge = await takeChallenge(port, ports, credential, 'enrol', account.id, account.id === null ? account.username : null);
  const rp = relyingParty(exchange);
  const { decodeAttestationObject, isoBase64URL, verifyRegistrationResponse } = await webauthn();
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    const attestation = decodeAttestationObject(isoBase64URL.toBuffer(String(credential.response.attestationObject ?? '')));
    if (attestation.get('attStmt')?.get('x5c')) throw new Error('send the passkey without attestation certificates (the dashboard asks for attestation "none")');
    verified = await verifyRegistrationResponse({ response: credential as unknown as RegistrationResponseJSON, expectedChallenge, expectedOrigin: rp.origins, expectedRPID: rp.id, requireUserVerification: false });
  } catch (error) {
    throw new ApiError('INVALID_INPUT', `The new passkey could not be verified: ${(error as Error).message}`);
  }
  if (!verified.verified) throw new ApiError('INVALID_INPUT', 'The new passkey could not be verified.');
  const { credential: made } = verified.registrationInfo;
  const at = new Date(ports.clock.now()).toISOString();
  return { id: made.id, account_id: account.id ?? '', name, public_key: isoBase64URL.fromBuffer(made.publicKey), counter: made.counter, transports: made.transports ?? [], created_at: at, last_used_at: null };
}

/** What navigator.credentials.get is given to sign in: no account named (the passkey is discoverable). */
export async function signInOptions(port: PasskeyPort, ports: Clock, exchange: Exchange) {
  const { generateAuthenticationOptions } = await webauthn();
  return generateAuthenticationOptions({ rpID: relyingParty(exchange).id, challenge: await newChallenge(port, ports, 'sign-in', null), timeout: challengeMs, userVerification: 'preferred' });
}

const notVerified = (why: string) => new ApiError('UNAUTHORIZED', `This passkey did not sign you in: ${why}`);

/**
 * Verifies a sign-in's answer: the passkey's account id, the passkey marked used (its counter and
 * last use). 401 for an unknown passkey, a used or expired challenge, or a signature that does not verify.
 */
export async function verifySignIn(port: PasskeyPort, ports: Clock & Pick<Ports, 'storage'>, exchange: Exchange, body: unknown): Promise<string> {
  const credential = credentialOf(body);
  const expectedChallenge = await takeChallenge(port, ports, credential, 'sign-in', null);
  const passkey = await port.getPasskey(credential.id);
  if (!passkey) throw notVerified('it is not enrolled here (it may have been removed). Sign in with a link, then add it again.');
  const { isoBase64URL, verifyAuthenticationResponse } = await webauthn();
  const handle = credential.response.userHandle;
  // A self sign-up's passkey names its account by username (permanent, and unique), made before the account's id was.
  const names = (name: string) => handle === isoBase64URL.fromUTF8String(name);
  if (typeof handle === 'string' && !names(passkey.account_id) && !names((await ports.storage.getAccount(passkey.account_id))?.username ?? passkey.account_id)) throw notVerified('it names another account.');
  const rp = relyingParty(exchange);
  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await verifyAuthenticationResponse({
      response: credential as unknown as AuthenticationResponseJSON,
      expectedChallenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      credential: { id: passkey.id, publicKey: isoBase64URL.toBuffer(passkey.public_key), counter: passkey.counter, transports: passkey.transports as never },
      requireUserVerification: false,
    });
  } catch (error) {
    throw notVerified((error as Error).message);
  }
  if (!verified.verified) throw notVerified('its signature does not verify.');
  await port.usePasskey(passkey.id, verified.authenticationInfo.newCounter, new Date(ports.clock.now()).toISOString());
  return passkey.account_id;
}
