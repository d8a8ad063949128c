import type { DashboardPort } from '../../core/ports/dashboard.js';
import { copy, type MemoryStorageState } from './storage-state.js';
import { passkeyMethods } from './storage-passkeys.js';

/** The memory store's dashboard sessions and sign-in links (core/ports/dashboard.ts); each method runs without awaiting, so each is atomic. */
export function dashboardMethods(s: MemoryStorageState): DashboardPort {
  return {
    async createSignInLink(link) {
      s.signInLinks.set(link.hash, copy(link));
    },
    async consumeSignInLink(hash, now) {
      const link = s.signInLinks.get(hash);
      if (!link) return null;
      s.signInLinks.delete(hash);
      return link.expires_at > now ? link.account_id : null;
    },
    async createSession(session) {
      s.dashboardSessions.set(session.hash, copy(session));
    },
    async getSession(hash) {
      const found = s.dashboardSessions.get(hash);
      return found ? copy(found) : null;
    },
    async touchSession(hash, seenAt) {
      const found = s.dashboardSessions.get(hash);
      if (found && found.seen_at < seenAt) s.dashboardSessions.set(hash, { ...found, seen_at: seenAt });
    },
    async deleteSession(hash) {
      s.dashboardSessions.delete(hash);
    },
    async sweepExpired(now, seenBefore) {
      let gone = 0;
      for (const [hash, session] of [...s.dashboardSessions.entries()]) {
        if (session.expires_at > now && session.seen_at >= seenBefore) continue;
        s.dashboardSessions.delete(hash);
        gone++;
      }
      for (const [hash, link] of [...s.signInLinks.entries()]) {
        if (link.expires_at > now) continue;
        s.signInLinks.delete(hash);
        gone++;
      }
      return gone;
    },
    async deleteSessionsOf(accountId) {
      let ended = 0;
      for (const [hash, session] of [...s.dashboardSessions.entries()]) {
        if (session.account_id !== accountId) continue;
        s.dashboardSessions.delete(hash);
        ended++;
      }
      return ended;
    },
    passkeys: passkeyMethods(s),
  };
}
