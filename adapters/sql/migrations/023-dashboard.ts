import type { Migration } from './migration.js';

/**
 * The dashboard's sign-in links and sessions (docs/dashboard.md): each keyed by the SHA-256 of its
 * secret (the link's, the cookie's), never the secret. An account's sessions are found by its id
 * (signing out everywhere); both go with the account.
 */
const index = 'CREATE INDEX dashboard_sessions_by_account ON dashboard_sessions (account_id)';

export const dashboard: Migration = {
  version: 23,
  name: 'dashboard',
  sqlite: [
    `CREATE TABLE dashboard_sign_in_links (
      hash TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL
    )`,
    `CREATE TABLE dashboard_sessions (
      hash TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      form_token TEXT NOT NULL,
      created_at TEXT NOT NULL,
      seen_at TEXT NOT NULL,
      expires_at TEXT NOT NULL
    )`,
    index,
  ],
  postgres: [
    `CREATE TABLE dashboard_sign_in_links (
      hash TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      created_at TEXT COLLATE "C" NOT NULL,
      expires_at TEXT COLLATE "C" NOT NULL
    )`,
    `CREATE TABLE dashboard_sessions (
      hash TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      form_token TEXT NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      seen_at TEXT COLLATE "C" NOT NULL,
      expires_at TEXT COLLATE "C" NOT NULL
    )`,
    index,
  ],
};
