import type { PasskeyPort } from '../../core/ports/passkeys.js';
import { copy, type MemoryStorageState } from './storage-state.js';

/** The memory store's passkeys and their challenges (core/ports/passkeys.ts); each method runs without awaiting, so each is atomic. */
export function passkeyMethods(s: MemoryStorageState): PasskeyPort {
  return {
    async addPasskey(passkey) {
      if (s.passkeys.has(passkey.id)) return false;
      s.passkeys.set(passkey.id, copy(passkey));
      return true;
    },
    async listPasskeys(accountId) {
      return [...s.passkeys.values()]
        .filter((passkey) => passkey.account_id === accountId)
        .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1))
        .map(copy);
    },
    async getPasskey(id) {
      const found = s.passkeys.get(id);
      return found ? copy(found) : null;
    },
    async usePasskey(id, counter, usedAt) {
      const found = s.passkeys.get(id);
      if (found) s.passkeys.set(id, { ...found, counter, last_used_at: usedAt });
    },
    async deletePasskey(accountId, id) {
      if (s.passkeys.get(id)?.account_id !== accountId) return false;
      s.passkeys.delete(id);
      return true;
    },
    async createChallenge(challenge) {
      for (const [hash, kept] of [...s.passkeyChallenges.entries()]) if (kept.expires_at <= challenge.created_at) s.passkeyChallenges.delete(hash);
      s.passkeyChallenges.set(challenge.hash, copy(challenge));
    },
    async consumeChallenge(hash, now) {
      const found = s.passkeyChallenges.get(hash);
      if (!found) return null;
      s.passkeyChallenges.delete(hash);
      return found.expires_at > now ? copy(found) : null;
    },
  };
}
