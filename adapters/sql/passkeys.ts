/**
 * The dashboard's passkeys and their challenges (core/ports/passkeys.ts) on SQLite and PostgreSQL:
 * each method one statement but createChallenge (which sweeps expired challenges first, by their
 * expiry's index). A challenge is used up by deleting it (RETURNING its row), so of concurrent uses
 * one gets the row and the others nothing; a passkey's id is its key, so a second one with the same
 * id is not inserted (ON CONFLICT DO NOTHING).
 */
import type { PasskeyPort } from '../../core/ports/passkeys.js';
import { recordReader } from './rows.js';
import type { SqlDatabase } from './session.js';
import { insertInto } from './statements.js';
import { decode, encode, passkeyChallenges, passkeys } from './tables.js';

export const passkeyStatements = {
  insertPasskey: `${insertInto(passkeys)} ON CONFLICT (id) DO NOTHING`,
  listPasskeys: 'SELECT * FROM dashboard_passkeys WHERE account_id = ? ORDER BY created_at, id',
  getPasskey: 'SELECT * FROM dashboard_passkeys WHERE id = ?',
  usePasskey: 'UPDATE dashboard_passkeys SET counter = ?, last_used_at = ? WHERE id = ?',
  deletePasskey: 'DELETE FROM dashboard_passkeys WHERE id = ? AND account_id = ?',
  sweepPasskeyChallenges: 'DELETE FROM dashboard_passkey_challenges WHERE expires_at <= ?',
  insertPasskeyChallenge: insertInto(passkeyChallenges),
  consumePasskeyChallenge: 'DELETE FROM dashboard_passkey_challenges WHERE hash = ? RETURNING *',
};

export function passkeyMethods(db: SqlDatabase): PasskeyPort {
  const s = passkeyStatements;
  const read = recordReader(db);
  return {
    addPasskey: async (passkey) => (await db.run(s.insertPasskey, encode(db.dialect, passkeys, passkey))) === 1,
    listPasskeys: (accountId) => read.all(passkeys, s.listPasskeys, accountId),
    getPasskey: (id) => read.one(passkeys, s.getPasskey, id),
    usePasskey: async (id, counter, usedAt) => void (await db.run(s.usePasskey, [counter, usedAt, id])),
    deletePasskey: async (accountId, id) => (await db.run(s.deletePasskey, [id, accountId])) === 1,
    async createChallenge(challenge) {
      await db.run(s.sweepPasskeyChallenges, [challenge.created_at]);
      await db.run(s.insertPasskeyChallenge, encode(db.dialect, passkeyChallenges, challenge));
    },
    async consumeChallenge(hash, now) {
      const [row] = await db.all(s.consumePasskeyChallenge, [hash]);
      if (!row) return null;
      const challenge = decode(passkeyChallenges, row);
      return challenge.expires_at > now ? challenge : null;
    },
  };
}
