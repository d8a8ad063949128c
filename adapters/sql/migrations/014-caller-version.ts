import { changeShards, versionedTokenColumns } from './006-change-version.js';
import type { Migration } from './migration.js';

/**
 * The callers' version (core/ports/change-version.ts, changeVersions), counted up in the
 * transaction of every write to accounts and to tokens but a token's last use, by any process. The
 * read cache keeps a token's caller until it moves, so that a listing's write leaves it kept.
 * SQLite: one row, bumped by a trigger per row (its data_version cannot say which table changed).
 * PostgreSQL: a column beside the version of migration 6 in the same sixteen rows, bumped with it,
 * so one question answers both sums. A column added to `tokens` later belongs in
 * `versionedTokenColumns` (the last use is the only column left out).
 */
export const callerVersion: Migration = {
  version: 14,
  name: 'caller-version',
  sqlite: [
    `CREATE TABLE marketkit_callers (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`,
    `INSERT INTO marketkit_callers (id, version) VALUES (1, 0)`,
    ...['INSERT', 'UPDATE', 'DELETE'].map((op) => `CREATE TRIGGER accounts_${op.toLowerCase()}_callers AFTER ${op} ON accounts BEGIN UPDATE marketkit_callers SET version = version + 1; END`),
    ...['INSERT', 'DELETE'].map((op) => `CREATE TRIGGER tokens_${op.toLowerCase()}_callers AFTER ${op} ON tokens BEGIN UPDATE marketkit_callers SET version = version + 1; END`),
    `CREATE TRIGGER tokens_update_callers AFTER UPDATE OF ${versionedTokenColumns.join(', ')} ON tokens BEGIN UPDATE marketkit_callers SET version = version + 1; END`,
  ],
  postgres: ({ schema }) => [
    `ALTER TABLE marketkit_changes ADD COLUMN callers BIGINT NOT NULL DEFAULT 0`,
    `CREATE FUNCTION ${schema}.marketkit_bump_callers() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE ${schema}.marketkit_changes SET version = version + 1, callers = callers + 1 WHERE shard = pg_backend_pid() % ${changeShards};
      RETURN NULL;
    END
    $$`,
    `DROP TRIGGER accounts_changed ON accounts`,
    `DROP TRIGGER tokens_changed ON tokens`,
    `DROP TRIGGER tokens_updated ON tokens`,
    `CREATE TRIGGER accounts_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON accounts FOR EACH STATEMENT EXECUTE FUNCTION marketkit_bump_callers()`,
    `CREATE TRIGGER tokens_changed AFTER INSERT OR DELETE OR TRUNCATE ON tokens FOR EACH STATEMENT EXECUTE FUNCTION marketkit_bump_callers()`,
    `CREATE TRIGGER tokens_updated AFTER UPDATE OF ${versionedTokenColumns.join(', ')} ON tokens FOR EACH STATEMENT EXECUTE FUNCTION marketkit_bump_callers()`,
  ],
};
