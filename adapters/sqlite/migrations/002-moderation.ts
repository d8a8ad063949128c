import type { Migration } from './migrations.js';

/**
 * Moderation: the last review decision shown to the seller (JSON text, NULL until there is one),
 * and the index that finds scheduled assets that are due (queries.ts listDueScheduled).
 */
export const moderation: Migration = {
  version: 2,
  name: 'moderation',
  statements: [
    `ALTER TABLE assets ADD COLUMN review TEXT`,
    `CREATE INDEX assets_due_scheduled ON assets (status, scheduled_publish_at, id)`,
  ],
};
