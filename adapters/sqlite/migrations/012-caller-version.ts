import type { Migration } from './migration.js';

/**
 * The callers' version (core/ports/change-version.ts, changeVersions): one row, counted up by a
 * trigger in the transaction of every write to accounts and to tokens but a token's last use, by
 * any process. The read cache keeps a token's caller until it moves, where SQLite's data_version
 * (another connection committed something) cannot say which table changed. A column added to
 * `tokens` later belongs in the UPDATE OF list (the last use is the only column left out).
 */
export const callerVersion: Migration = {
  version: 12,
  name: 'caller-version',
  statements: [
    `CREATE TABLE marketkit_callers (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`,
    `INSERT INTO marketkit_callers (id, version) VALUES (1, 0)`,
    ...['INSERT', 'UPDATE', 'DELETE'].map((op) => `CREATE TRIGGER accounts_${op.toLowerCase()}_callers AFTER ${op} ON accounts BEGIN UPDATE marketkit_callers SET version = version + 1; END`),
    ...['INSERT', 'DELETE'].map((op) => `CREATE TRIGGER tokens_${op.toLowerCase()}_callers AFTER ${op} ON tokens BEGIN UPDATE marketkit_callers SET version = version + 1; END`),
    `CREATE TRIGGER tokens_update_callers AFTER UPDATE OF id, account_id, name, prefix, hash, scopes, created_at, expires_at, revoked_at ON tokens BEGIN UPDATE marketkit_callers SET version = version + 1; END`,
  ],
};
