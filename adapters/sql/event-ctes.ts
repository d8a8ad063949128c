import { everyEventType } from '../../core/domain/webhook-events.js';
import type { OutboxEvent } from '../../core/ports/storage.js';
import type { SqlDialect } from './session.js';

/**
 * What writeEvents writes (webhooks.ts), as CTEs of the one statement that writes the change,
 * where the dialect has `oneStatement` (PostgreSQL): each event inserted only when the CTE it
 * reads from answered a row, each after the one before it (so they take their sequence numbers in
 * the order given), and queued to the account's enabled endpoints that subscribe to it, locked FOR
 * SHARE as endpointsOfEvent locks them (a concurrent disable waits, or is read afresh and left
 * out). A text depends on how many events and changes there are, never on what they say, so a
 * caller can make it once per count; the parameters are the events'.
 */
export interface EventCtes {
  /** CTEs that write one change's `count` events, when the CTE `source` answered a row. */
  sql(source: string, count: number): string;
  /** Their parameters, in the order of that text. */
  params(events: readonly OutboxEvent[]): unknown[];
  /**
   * CTEs that write the events of `rows` changes at once, `count` events each: a change's events
   * only when the CTE `source` answered its key as an `id` (a change that wrote nothing has none).
   */
  groupSql(source: string, rows: number, count: number): string;
  /** Their parameters: each change's key and events, in the order of the rows; every change has the same number of events. */
  groupParams(changes: readonly { key: string; events: readonly OutboxEvent[] }[]): unknown[];
}

const columns = ['id', 'type', 'account_id', 'subject_id', 'created_at', 'data', 'traceparent'];
const values = columns.map(() => '?::text').join(', ');
const returned = 'RETURNING id, type, account_id, created_at, sequence';

/** As newDelivery makes them: first due at the event's time. */
const fields = (event: OutboxEvent) => [event.id, event.type, event.account_id, event.subject_id, event.created_at, event.data, event.traceparent ?? null, Date.parse(event.created_at)];

/** The dialect's event CTEs; undefined where it has no `oneStatement` (the events are then written by writeEvents). */
export function eventCtesOf({ oneStatement: one, lock }: SqlDialect): EventCtes | undefined {
  if (!one) return undefined;
  /** The deliveries of the events CTE `e${i}` inserted, first due at `due`, with the rows of `joins` beside each event. */
  const deliveries = (i: number, due: string, joins = '') => `d${i} AS (INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, event_sequence, status, attempts, next_attempt_ms, redelivery_of, created_at, updated_at)
      SELECT ${one.uuid}, e.account_id, ep.id, e.id, e.type, e.sequence, 'pending', '[]', ${due}, NULL, e.created_at, e.created_at
      FROM e${i} e${joins} JOIN webhook_endpoints ep ON ep.account_id = e.account_id
      WHERE ep.enabled AND (${one.jsonArrayHas('ep.event_types', `'${everyEventType}'::text`)} OR ${one.jsonArrayHas('ep.event_types', 'e.type')})${lock.share} OF ep)`;
  const after = (source: string, i: number) => (i === 0 ? source : `e${i - 1}`);
  return {
    sql: (source, count) =>
      Array.from(
        { length: count },
        (_, i) => `e${i} AS (INSERT INTO webhook_events (${columns.join(', ')})
      SELECT ${values} FROM ${after(source, i)} ${returned}),
    ${deliveries(i, '?::int8')}`,
      ).join(',\n    '),
    params: (events) => events.flatMap(fields),
    // The i-th events of every change in a VALUES list `v${i}`, each row naming the id it hangs on
    // (the change's key, then the change's event before it) and its place: inserted in that order.
    groupSql: (source, rows, count) =>
      Array.from(
        { length: count },
        (_, i) => `v${i} (n, parent, ${columns.join(', ')}, due) AS (VALUES ${Array.from({ length: rows }, (_, n) => `(${n}, ?::text, ${values}, ?::int8)`).join(', ')}),
    e${i} AS (INSERT INTO webhook_events (${columns.join(', ')})
      SELECT ${columns.map((c) => `v.${c}`).join(', ')} FROM v${i} v JOIN ${after(source, i)} p ON p.id = v.parent ORDER BY v.n ${returned}),
    ${deliveries(i, 'v.due', ` JOIN v${i} v ON v.id = e.id`)}`,
      ).join(',\n    '),
    groupParams: (changes) =>
      Array.from({ length: changes[0]?.events.length ?? 0 }, (_, i) => changes.flatMap(({ key, events }) => [i === 0 ? key : events[i - 1]!.id, ...fields(events[i]!)])).flat(),
  };
}
