import type { Migration } from './migration.js';

/**
 * The traceparent of the request that caused an outbox event (docs/operations.md, "Traces"),
 * written with the event in the change's transaction, so that the delivery span links to that
 * request whichever instance delivers it, after a restart or on a redelivery. Null without one;
 * on PostgreSQL a nullable column with no default rewrites no row.
 */
export const eventTraceparent: Migration = {
  version: 16,
  name: 'event-traceparent',
  sqlite: [`ALTER TABLE webhook_events ADD COLUMN traceparent TEXT CHECK (traceparent IS NULL OR length(traceparent) <= 128)`],
  postgres: [`ALTER TABLE webhook_events ADD COLUMN traceparent VARCHAR(128)`],
};
