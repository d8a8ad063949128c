import type { ListPosition } from './listings.js';
import type { AccountChanges, AccountRecord, TokenRecord } from './records.js';
import type { OutboxEvent } from './webhook-records.js';

/**
 * Accounts and their API tokens: who calls, and with what. One of the capability ports that make
 * up StoragePort (core/ports/storage.ts).
 * Every method is atomic on its own and returns copies (core/ports/storage.ts, StoragePort).
 */
export interface AccountsPort {
  /** Inserts a new account. MUST throw when the id exists, or the username does ignoring ASCII case. */
  insertAccount(account: AccountRecord): Promise<void>;
  getAccount(id: string): Promise<AccountRecord | null>;
  /** The account with this username, ignoring ASCII case (usernames are unique so); null when none. */
  findAccountByUsername(username: string): Promise<AccountRecord | null>;
  /**
   * Accounts by username (byte order), a page of them (from `offset`, or after `after`: its key is
   * the username), and how many there are (kept by the store, not counted per call).
   */
  listAccounts(limit: number, offset: number, after?: ListPosition): Promise<{ items: AccountRecord[]; total: number }>;
  /** Applies `changes` to the account; null when it does not exist. */
  updateAccount(id: string, changes: AccountChanges): Promise<AccountRecord | null>;

  insertToken(token: TokenRecord): Promise<void>;
  /** The token with this hash, revoked or not; null when none. */
  findTokenByHash(hash: string): Promise<TokenRecord | null>;
  getToken(id: string): Promise<TokenRecord | null>;
  /** The account's tokens that are not revoked, newest first (created_at desc, id desc). */
  listTokens(accountId: string): Promise<TokenRecord[]>;
  /**
   * Marks the token revoked at `at` unless it already is (then it keeps its first revoked_at).
   * Returns the token as stored afterwards; null when the account has no token with this id.
   * After it resolves, `findTokenByHash` MUST show the revocation to every caller. `events` are
   * written with the revocation, in the same transaction (see "The outbox" below), only when this
   * call revoked the token.
   */
  revokeToken(accountId: string, id: string, at: string, events?: readonly OutboxEvent[]): Promise<TokenRecord | null>;
  /** Records a use of the token. May be skipped by callers within a minute of the last. */
  touchToken(id: string, at: string): Promise<void>;
}
