/**
 * The dashboard's passkeys (docs/dashboard.md, "Passkeys"): the WebAuthn credentials an account
 * enrolled, and the single-use challenges of enrolling and signing in. Part of the dashboard's port
 * (`dashboard.passkeys`, core/ports/dashboard.ts). Only public keys are kept; a challenge is kept as
 * its SHA-256 (hex), as a sign-in link is. Every method is atomic on its own and returns copies.
 */

/** A passkey: a credential's public key, whose account it signs in, and its name. */
export interface PasskeyRecord {
  /** The credential's id, base64url, as the authenticator made it: unique over every account. */
  id: string;
  account_id: string;
  /** The name its owner gave it ("Laptop"). */
  name: string;
  /** The credential's COSE public key, base64url. */
  public_key: string;
  /** The authenticator's signature counter, as last seen (0 for one that keeps none). */
  counter: number;
  /** How the browser said it reaches the authenticator (`internal`, `usb`, `hybrid`...). */
  transports: string[];
  created_at: string;
  last_used_at: string | null;
}

/** A challenge handed to a browser: enrolling a passkey (for an account) or signing in (anyone). */
export interface PasskeyChallengeRecord {
  /** SHA-256 (hex) of the challenge (base64url, as the browser signs it). */
  hash: string;
  purpose: 'enrol' | 'sign-in';
  /** Enrolling: the signed-in account. Signing in: null (a discoverable passkey names its account). */
  account_id: string | null;
  created_at: string;
  expires_at: string;
}

export interface PasskeyPort {
  /** Stores a new passkey: false, and nothing stored, when a passkey with its id exists (on any account). */
  addPasskey(passkey: PasskeyRecord): Promise<boolean>;
  /** The account's passkeys, oldest first (created_at, then id). */
  listPasskeys(accountId: string): Promise<PasskeyRecord[]>;
  getPasskey(id: string): Promise<PasskeyRecord | null>;
  /** A sign-in with it: its counter becomes `counter` and last_used_at `usedAt`; nothing when it is gone. */
  usePasskey(id: string, counter: number, usedAt: string): Promise<void>;
  /** Removes the account's passkey: false when the account has no passkey with this id (another account's is left alone). */
  deletePasskey(accountId: string, id: string): Promise<boolean>;
  /** Stores a challenge; challenges past their expiry at its created_at may be removed on the way. */
  createChallenge(challenge: PasskeyChallengeRecord): Promise<void>;
  /**
   * Uses the challenge up: the record when one with this hash exists and has not expired at `now`
   * (an ISO time), gone afterwards; null otherwise. Of concurrent uses exactly one MUST get it.
   */
  consumeChallenge(hash: string, now: string): Promise<PasskeyChallengeRecord | null>;
}
