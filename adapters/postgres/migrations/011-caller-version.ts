import { changeShards, versionedTokenColumns } from './003-change-version.js';
import type { Migration } from './migration.js';

/**
 * The callers' version (core/ports/change-version.ts, changeVersions), beside the version of
 * migration 3 in the same sixteen rows: a write to accounts or tokens (a token's last use apart)
 * bumps both, in its transaction, so one question answers both sums. The read cache keeps a token's
 * caller until the callers' sum moves, so a listing's write on any instance leaves it kept.
 */
export const callerVersion: Migration = {
  version: 11,
  name: 'caller-version',
  statements: ({ schema }) => [
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
