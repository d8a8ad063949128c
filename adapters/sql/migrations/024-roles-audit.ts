import type { Migration } from './migration.js';

/**
 * The dashboard's roles and audit log (docs/dashboard.md, "Roles"): two account flags an operator
 * sets (moderator, operator), and every moderator's and operator's action in the dashboard, newest
 * first by (at, id). An entry names its actor by id and username as they were, with no foreign key:
 * the log outlives the accounts it names.
 */
const index = 'CREATE INDEX audit_log_newest ON audit_log (at, id)';

export const rolesAudit: Migration = {
  version: 24,
  name: 'roles-audit',
  sqlite: [
    'ALTER TABLE accounts ADD COLUMN is_moderator INTEGER NOT NULL DEFAULT 0',
    'ALTER TABLE accounts ADD COLUMN is_operator INTEGER NOT NULL DEFAULT 0',
    `CREATE TABLE audit_log (
      id TEXT PRIMARY KEY,
      at TEXT NOT NULL,
      actor_id TEXT NOT NULL,
      actor TEXT NOT NULL,
      action TEXT NOT NULL,
      subject TEXT NOT NULL,
      reason TEXT
    )`,
    index,
  ],
  postgres: [
    'ALTER TABLE accounts ADD COLUMN is_moderator BOOLEAN NOT NULL DEFAULT false',
    'ALTER TABLE accounts ADD COLUMN is_operator BOOLEAN NOT NULL DEFAULT false',
    `CREATE TABLE audit_log (
      id TEXT COLLATE "C" PRIMARY KEY,
      at TEXT COLLATE "C" NOT NULL,
      actor_id TEXT COLLATE "C" NOT NULL,
      actor TEXT NOT NULL,
      action TEXT COLLATE "C" NOT NULL,
      subject TEXT NOT NULL,
      reason TEXT
    )`,
    index,
  ],
};
