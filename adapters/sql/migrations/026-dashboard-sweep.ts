import type { Migration } from './migration.js';

/**
 * The dashboard's sweep (docs/dashboard.md, "Sessions"): sessions past their absolute or idle end,
 * and sign-in links past theirs, are deleted by their expiry and last-seen times, so that abandoned
 * ones never pile up.
 */
const indexes = [
  'CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at)',
  'CREATE INDEX dashboard_sessions_seen ON dashboard_sessions (seen_at)',
  'CREATE INDEX dashboard_sign_in_links_expiry ON dashboard_sign_in_links (expires_at)',
];

export const dashboardSweep: Migration = {
  version: 26,
  name: 'dashboard-sweep',
  sqlite: indexes,
  postgres: indexes,
};
