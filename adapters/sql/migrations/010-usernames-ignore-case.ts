import type { Migration } from './migration.js';

const hex = '[0-9a-fA-F]';
/** A UUID's shape as a GLOB pattern (8-4-4-4-12 hexadecimal digits). */
const uuidShape = [8, 4, 4, 4, 12].map((n) => hex.repeat(n)).join('-');

/**
 * Usernames unique ignoring ASCII case, and none shaped like a UUID (core/domain/accounts.ts). A
 * database may already hold two names that differ only in case, or a UUID-shaped one: of each
 * group the oldest account (by created_at, then id) keeps its name, and every other account, like
 * every UUID-shaped name, is renamed to its first 31 characters, `-` and the first 8 characters of
 * its id (`Castle` -> `Castle-1f2e3d4c`): a name nobody else holds and that no lookup mistakes for
 * an id. Nothing else of the account changes; docs/moderation.md says how to find the renamed.
 * Each statement sees the table as it was before it, so the order it renames in does not matter.
 * SQLite's NOCASE and PostgreSQL's lower() fold ASCII only, which is all a username holds; the
 * look-up by name reads the index.
 */
export const usernamesIgnoreCase: Migration = {
  version: 10,
  name: 'usernames-ignore-case',
  sqlite: [
    `UPDATE accounts SET username = substr(username, 1, 31) || '-' || substr(id, 1, 8)
      WHERE username GLOB '${uuidShape}'
         OR EXISTS (SELECT 1 FROM accounts AS earlier
                    WHERE earlier.username = accounts.username COLLATE NOCASE AND earlier.id <> accounts.id
                      AND (earlier.created_at < accounts.created_at OR (earlier.created_at = accounts.created_at AND earlier.id < accounts.id)))`,
    // NOCASE folds ASCII only, which is all a username holds; the look-up by name reads this index.
    `CREATE UNIQUE INDEX accounts_username_nocase ON accounts (username COLLATE NOCASE)`,
  ],
  postgres: [
    `UPDATE accounts AS later SET username = substr(later.username, 1, 31) || '-' || substr(later.id, 1, 8)
      WHERE later.username ~ '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$'
         OR EXISTS (SELECT 1 FROM accounts AS earlier
                    WHERE lower(earlier.username) = lower(later.username) AND earlier.id <> later.id
                      AND (earlier.created_at, earlier.id) < (later.created_at, later.id))`,
    `CREATE UNIQUE INDEX accounts_username_lower ON accounts (lower(username))`,
  ],
};
