/**
 * What the dashboard keeps (docs/dashboard.md): its sessions and its one-time sign-in links, a
 * capability port of a storage (`storage.dashboard`, found by dashboardOf) as versions are. Only
 * hashes (SHA-256, hex) of the secrets are stored: the cookie's and the link's secrets exist in the
 * browser and the link alone. Every method is atomic on its own and returns copies. Its passkeys
 * are a port of their own (`passkeys`, core/ports/passkeys.ts).
 */
import type { PasskeyPort } from './passkeys.js';

/** A sign-in link an operator made for an account: single use, short-lived. */
export interface SignInLinkRecord {
  /** SHA-256 (hex) of the link's secret. */
  hash: string;
  account_id: string;
  created_at: string;
  expires_at: string;
}

/** A signed-in browser: the cookie's secret, hashed, and when it ends. */
export interface DashboardSessionRecord {
  /** SHA-256 (hex) of the cookie's secret. */
  hash: string;
  account_id: string;
  /** The secret each of the session's forms carries back (its CSRF token; not the cookie's). */
  form_token: string;
  created_at: string;
  /** Last seen: the idle expiry counts from it. */
  seen_at: string;
  /** The absolute end, however active the session. */
  expires_at: string;
}

export interface DashboardPort {
  createSignInLink(link: SignInLinkRecord): Promise<void>;
  /**
   * Uses the link up: its account id when a link with this hash exists and has not expired at
   * `now` (an ISO time), and it is gone afterwards; null otherwise. Of concurrent uses of one link
   * exactly one MUST get the account.
   */
  consumeSignInLink(hash: string, now: string): Promise<string | null>;
  createSession(session: DashboardSessionRecord): Promise<void>;
  getSession(hash: string): Promise<DashboardSessionRecord | null>;
  /** Moves the session's seen_at forward (never back); nothing when it is gone. */
  touchSession(hash: string, seenAt: string): Promise<void>;
  /** Ends one session (signing out); nothing when it is gone. */
  deleteSession(hash: string): Promise<void>;
  /** Ends every session of the account (signing out everywhere); how many ended. */
  deleteSessionsOf(accountId: string): Promise<number>;
  /**
   * Deletes the sessions whose absolute end is at or before `now` or last seen before `seenBefore`
   * (idle past their end), and the sign-in links whose end is at or before `now`: how many went.
   */
  sweepExpired(now: string, seenBefore: string): Promise<number>;
  /** The accounts' passkeys and their challenges. */
  readonly passkeys: PasskeyPort;
}

/** The dashboard capability of a storage, when it has one. */
export function dashboardOf(storage: object): DashboardPort | undefined {
  const found = (storage as { dashboard?: DashboardPort }).dashboard;
  return found && typeof found.consumeSignInLink === 'function' ? found : undefined;
}
