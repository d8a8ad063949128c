import type { Migration } from './migration.js';

/**
 * The traceparent of the request that caused an outbox event, as SQLite's migration 14 has it
 * (docs/operations.md, "Traces"): the delivery span links to that request whichever instance
 * delivers it. Null without one; a nullable column with no default rewrites no row.
 */
export const eventTraceparent: Migration = {
  version: 13,
  name: 'event-traceparent',
  statements: [`ALTER TABLE webhook_events ADD COLUMN traceparent VARCHAR(128)`],
};
