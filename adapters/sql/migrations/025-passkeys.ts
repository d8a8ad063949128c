import type { Migration } from './migration.js';

/**
 * The dashboard's passkeys (docs/dashboard.md, "Passkeys"): each credential by its id (the
 * authenticator's, unique over every account), an account's listed oldest first; and the challenges
 * handed to browsers, single use, by the SHA-256 of the challenge, with their expiry indexed so
 * that expired ones are swept. Both go with the account.
 */
const indexes = [
  'CREATE INDEX dashboard_passkeys_by_account ON dashboard_passkeys (account_id, created_at, id)',
  'CREATE INDEX dashboard_passkey_challenges_expiry ON dashboard_passkey_challenges (expires_at)',
];

export const passkeys: Migration = {
  version: 25,
  name: 'passkeys',
  sqlite: [
    `CREATE TABLE dashboard_passkeys (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      public_key TEXT NOT NULL,
      counter INTEGER NOT NULL,
      transports TEXT NOT NULL,
      created_at TEXT NOT NULL,
      last_used_at TEXT
    )`,
    `CREATE TABLE dashboard_passkey_challenges (
      hash TEXT PRIMARY KEY,
      purpose TEXT NOT NULL,
      account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
      created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL
    )`,
    ...indexes,
  ],
  postgres: [
    `CREATE TABLE dashboard_passkeys (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      public_key TEXT NOT NULL,
      counter BIGINT NOT NULL,
      transports JSON NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      last_used_at TEXT COLLATE "C"
    )`,
    `CREATE TABLE dashboard_passkey_challenges (
      hash TEXT COLLATE "C" PRIMARY KEY,
      purpose TEXT COLLATE "C" NOT NULL,
      account_id TEXT COLLATE "C" REFERENCES accounts(id) ON DELETE CASCADE,
      created_at TEXT COLLATE "C" NOT NULL,
      expires_at TEXT COLLATE "C" NOT NULL
    )`,
    ...indexes,
  ],
};
