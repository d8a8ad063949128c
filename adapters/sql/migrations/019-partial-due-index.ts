import type { Migration } from './migration.js';

/**
 * SQLite's scheduler index made partial: only a scheduled listing is ever looked up by its publish
 * time (listDueScheduled asks `status = 'scheduled'`), yet every listing of every status had an
 * entry, placed by its random id, so each create wrote one more B-tree page at a random place
 * (docs/performance.md, issue #31: about 1.3 of a create's 8 WAL pages). Now only scheduled
 * listings have one. Its columns are as they were, so that the planner, which keeps no statistics
 * here, still prefers it to `assets_by_status` for that query (it constrains one column more).
 */
export const partialDueIndex: Migration = {
  version: 19,
  name: 'partial-due-index',
  sqlite: [`DROP INDEX assets_due_scheduled`, `CREATE INDEX assets_due_scheduled ON assets (status, scheduled_publish_at, id) WHERE status = 'scheduled'`],
  // Tried on PostgreSQL: 5 % less WAL a create, too little to keep (docs/performance.md, "Tried and not kept").
  postgres: [],
};
