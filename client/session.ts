/**
 * A developer token exchanged for a short-lived session JWT (POST /api/v1/auth/session), renewed
 * before it expires and once more when the server refuses it (its clock may run ahead of ours).
 * The developer token itself then travels only to the exchange.
 */
import { MarketKitError } from './errors.js';
import { createTransport, type ClientOptions, type Credential } from './http.js';
import { operationMethods } from './operation-methods.js';
import type { Session } from './types.js';

export interface ExchangedSessionOptions extends Omit<ClientOptions, 'token'> {
  /** The developer token (`smcp_...`). */
  developerToken: string;
  /** Renew this long before the session expires. Default 5 minutes. */
  renewBeforeMs?: number;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** Told after each exchange: for logs. */
  onExchange?: (session: { expiresAt: number; scope: string }) => void;
  /** The name the token goes by in messages (`MARKETKIT_API_TOKEN`). */
  tokenName?: string;
}

export interface ExchangedSession extends Credential {
  /** The current session's expiry (ms since the epoch), or null before the first exchange. */
  expiresAt(): number | null;
}

export function exchangedSession(options: ExchangedSessionOptions): ExchangedSession {
  const { developerToken, renewBeforeMs = 5 * 60_000, now = Date.now, tokenName = 'the developer token' } = options;
  const exchange = operationMethods(createTransport({ ...options, token: developerToken }).send);
  let current: { jwt: string; expiresAt: number } | null = null;
  let pending: Promise<string> | null = null;

  async function renewNow(): Promise<string> {
    let session: Session;
    try {
      session = await exchange.createSession();
    } catch (error) {
      if (error instanceof MarketKitError && error.status === 401) {
        throw new MarketKitError({
          status: 401,
          code: 'UNAUTHORIZED',
          message: `The server refused ${tokenName}: it was revoked, has expired, or is mistyped (${error.message}). Create a new developer token and set it.`,
          requestId: error.requestId,
          cause: error,
        });
      }
      throw error;
    }
    current = { jwt: session.access_token, expiresAt: now() + session.expires_in * 1000 };
    options.onExchange?.({ expiresAt: current.expiresAt, scope: session.scope });
    return current.jwt;
  }

  /** One exchange at a time: concurrent calls wait for the same one. */
  function renewOnce(): Promise<string> {
    pending ??= renewNow().finally(() => {
      pending = null;
    });
    return pending;
  }

  return {
    async token() {
      // Renew ahead of expiry; a session shorter than the margin is renewed at half its life.
      if (current && now() < current.expiresAt - renewBeforeMs) return current.jwt;
      return renewOnce();
    },
    async renew(refused) {
      // Another call may have renewed already.
      if (current && current.jwt !== refused) return true;
      current = null;
      await renewOnce();
      return true;
    },
    expiresAt: () => current?.expiresAt ?? null,
  };
}
