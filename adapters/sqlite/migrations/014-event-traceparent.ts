import type { Migration } from './migration.js';

/**
 * The traceparent of the request that caused an outbox event (docs/operations.md, "Traces"),
 * written with the event in the change's transaction, so that the delivery span links to that
 * request whichever instance delivers it, after a restart or on a redelivery. Null without one.
 */
export const eventTraceparent: Migration = {
  version: 14,
  name: 'event-traceparent',
  statements: [`ALTER TABLE webhook_events ADD COLUMN traceparent TEXT CHECK (traceparent IS NULL OR length(traceparent) <= 128)`],
};
