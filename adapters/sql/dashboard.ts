/**
 * The dashboard's sign-in links and sessions (core/ports/dashboard.ts) on SQLite and PostgreSQL:
 * each method one statement. A link is used up by deleting it (RETURNING its row), so of concurrent
 * uses one gets the row and the others nothing.
 */
import type { DashboardPort } from '../../core/ports/dashboard.js';
import { recordReader } from './rows.js';
import type { SqlDatabase } from './session.js';
import { passkeyMethods, passkeyStatements } from './passkeys.js';
import { insertInto } from './statements.js';
import { dashboardSessions, encode, signInLinks } from './tables.js';

export const dashboardStatements = {
  insertSignInLink: insertInto(signInLinks),
  consumeSignInLink: 'DELETE FROM dashboard_sign_in_links WHERE hash = ? RETURNING account_id, expires_at',
  insertDashboardSession: insertInto(dashboardSessions),
  getDashboardSession: 'SELECT * FROM dashboard_sessions WHERE hash = ?',
  touchDashboardSession: 'UPDATE dashboard_sessions SET seen_at = ? WHERE hash = ? AND seen_at < ?',
  deleteDashboardSession: 'DELETE FROM dashboard_sessions WHERE hash = ?',
  deleteDashboardSessionsOf: 'DELETE FROM dashboard_sessions WHERE account_id = ?',
  sweepEndedSessions: 'DELETE FROM dashboard_sessions WHERE expires_at <= ?',
  sweepIdleSessions: 'DELETE FROM dashboard_sessions WHERE seen_at < ?',
  sweepEndedLinks: 'DELETE FROM dashboard_sign_in_links WHERE expires_at <= ?',
  ...passkeyStatements,
};

export function dashboardMethods(db: SqlDatabase): DashboardPort {
  const s = dashboardStatements;
  const read = recordReader(db);
  return {
    createSignInLink: async (link) => void (await db.run(s.insertSignInLink, encode(db.dialect, signInLinks, link))),
    async consumeSignInLink(hash, now) {
      const [row] = await db.all(s.consumeSignInLink, [hash]);
      return row && String(row.expires_at) > now ? String(row.account_id) : null;
    },
    createSession: async (session) => void (await db.run(s.insertDashboardSession, encode(db.dialect, dashboardSessions, session))),
    getSession: (hash) => read.one(dashboardSessions, s.getDashboardSession, hash),
    touchSession: async (hash, seenAt) => void (await db.run(s.touchDashboardSession, [seenAt, hash, seenAt])),
    deleteSession: async (hash) => void (await db.run(s.deleteDashboardSession, [hash])),
    deleteSessionsOf: (accountId) => db.run(s.deleteDashboardSessionsOf, [accountId]),
    async sweepExpired(now, seenBefore) {
      const counts = await Promise.all([db.run(s.sweepEndedSessions, [now]), db.run(s.sweepIdleSessions, [seenBefore]), db.run(s.sweepEndedLinks, [now])]);
      return counts.reduce((a, b) => a + b, 0);
    },
    passkeys: passkeyMethods(db),
  };
}
