import type { Migration } from './migration.js';

/**
 * Moderation: the last review decision shown to the seller (JSON text, NULL until there is one),
 * the index that finds scheduled assets that are due (listDueScheduled) and the one that lists a
 * status across owners, oldest change first (listAssetsInStatus, the moderation queue).
 */
export const moderation: Migration = {
  version: 2,
  name: 'moderation',
  sqlite: [
    `ALTER TABLE assets ADD COLUMN review TEXT`,
    `CREATE INDEX assets_due_scheduled ON assets (status, scheduled_publish_at, id)`,
    `CREATE INDEX assets_by_status ON assets (status, updated_at, id)`,
  ],
  // PostgreSQL's initial schema has them.
  postgres: [],
};
