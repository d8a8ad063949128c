import type { Migration } from './migration.js';

/**
 * Usernames unique ignoring ASCII case, and none shaped like a UUID, as SQLite's migration 8 has
 * them (the same renaming: of names that differ only in case the oldest account keeps its own,
 * every other one and every UUID-shaped name becomes its first 31 characters, `-` and the first 8
 * characters of its id). The statement sees the table as it was before it, so the order it renames
 * in does not matter. lower() folds ASCII as SQLite's NOCASE does, which is all a username holds.
 */
export const usernamesIgnoreCase: Migration = {
  version: 7,
  name: 'usernames-ignore-case',
  statements: [
    `UPDATE accounts AS later SET username = substr(later.username, 1, 31) || '-' || substr(later.id, 1, 8)
      WHERE later.username ~ '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$'
         OR EXISTS (SELECT 1 FROM accounts AS earlier
                    WHERE lower(earlier.username) = lower(later.username) AND earlier.id <> later.id
                      AND (earlier.created_at, earlier.id) < (later.created_at, later.id))`,
    `CREATE UNIQUE INDEX accounts_username_lower ON accounts (lower(username))`,
  ],
};
