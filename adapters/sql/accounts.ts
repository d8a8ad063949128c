import { applyChanges, type AccountsPort, type OutboxEvent } from '../../core/ports/storage.js';
import { recordReader } from './rows.js';
import type { SqlDatabase, SqlDialect, SqlSession } from './session.js';
import { insertInto, updateOf } from './statements.js';
import { accounts, encode, tokens, updatedColumns } from './tables.js';

export const accountStatements = ({ lock, byteOrder, sameIgnoringCase }: SqlDialect) => ({
  insertAccount: insertInto(accounts),
  getAccount: 'SELECT * FROM accounts WHERE id = ?',
  // Locks the row for the rest of updateAccount's transaction: a concurrent update waits, then reads this one's result.
  getAccountForUpdate: `SELECT * FROM accounts WHERE id = ?${lock.update}`,
  // Usernames are unique ignoring case: the look-up ignores it too, on that index.
  findAccountByUsername: `SELECT * FROM accounts WHERE ${sameIgnoringCase('username')}`,
  // Byte order whatever the database's collation, as the other adapters sort.
  listAccounts: `SELECT * FROM accounts ORDER BY ${byteOrder('username')} ASC LIMIT ? OFFSET ?`,
  listAccountsAfter: `SELECT * FROM accounts WHERE ${byteOrder('username')} > ? ORDER BY ${byteOrder('username')} ASC LIMIT ?`,
  // Kept by triggers in the writing transaction (migration listing-counts), not counted.
  countAccounts: "SELECT COALESCE(SUM(total), 0) AS total FROM row_counts WHERE name = 'accounts'",
  updateAccount: updateOf(accounts),

  insertToken: insertInto(tokens),
  findTokenByHash: 'SELECT * FROM tokens WHERE hash = ?',
  getToken: 'SELECT * FROM tokens WHERE id = ?',
  listTokens: 'SELECT * FROM tokens WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id DESC',
  // COALESCE keeps the first revocation time; the UPDATE is the whole change.
  revokeToken: 'UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND account_id = ?',
  // With an event: only a live token is revoked, so that the event goes with the first revocation only.
  revokeLiveToken: 'UPDATE tokens SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL',
  getAccountToken: 'SELECT * FROM tokens WHERE id = ? AND account_id = ?',
  touchToken: 'UPDATE tokens SET last_used_at = ? WHERE id = ?',
});

/** Accounts and tokens (core/ports/accounts.ts). `writeEvents` writes a change's events on its transaction (webhooks.ts). */
export function accountMethods(db: SqlDatabase, writeEvents: (tx: SqlSession, events: readonly OutboxEvent[]) => Promise<void>): AccountsPort {
  const s = accountStatements(db.dialect);
  const { one, all, page } = recordReader(db);
  return {
    async insertAccount(account) {
      await db.run(s.insertAccount, encode(db.dialect, accounts, account));
    },
    async getAccount(id) {
      return one(accounts, s.getAccount, id);
    },
    async listAccounts(limit, offset, after) {
      // Usernames are unique (in byte order too): the username alone is the position.
      return after ? page(accounts, s.listAccountsAfter, [after.key, limit], s.countAccounts, []) : page(accounts, s.listAccounts, [limit, offset], s.countAccounts, []);
    },
    async findAccountByUsername(username) {
      return one(accounts, s.findAccountByUsername, username);
    },
    async updateAccount(id, changes) {
      return db.transaction(async (tx) => {
        const current = await recordReader(tx).one(accounts, s.getAccountForUpdate, id);
        if (!current) return null;
        const updated = applyChanges(current, changes);
        await tx.run(s.updateAccount, encode(db.dialect, accounts, updated, updatedColumns(accounts)));
        return updated;
      });
    },

    async insertToken(token) {
      await db.run(s.insertToken, encode(db.dialect, tokens, token));
    },
    async findTokenByHash(hash) {
      return one(tokens, s.findTokenByHash, hash);
    },
    async getToken(id) {
      return one(tokens, s.getToken, id);
    },
    async listTokens(accountId) {
      return all(tokens, s.listTokens, accountId);
    },
    async revokeToken(accountId, id, at, events) {
      if (!events?.length) return (await db.run(s.revokeToken, [at, id, accountId])) === 0 ? null : one(tokens, s.getAccountToken, id, accountId);
      return db.transaction(async (tx) => {
        if ((await tx.run(s.revokeLiveToken, [at, id, accountId])) === 1) await writeEvents(tx, events);
        return recordReader(tx).one(tokens, s.getAccountToken, id, accountId);
      });
    },
    async touchToken(id, at) {
      await db.run(s.touchToken, [at, id]);
    },
  };
}
