import { isStorageUnavailable } from '../../core/errors.js';
import { copyRecord, type AssetRecord, type CreateAssetResult, type ListingsPort, type OutboxEvent } from '../../core/ports/storage.js';
import type { EventCtes } from './event-ctes.js';
import type { SqlDatabase } from './session.js';
import { insertRowsInto } from './statements.js';
import { assets, encode } from './tables.js';

/**
 * Most creates in one statement. Each number of rows is a statement text of its own, prepared on
 * each connection of the pool that runs it: at most `groupLimit - 1` of them per number of events.
 */
export const groupLimit = 16;

/**
 * Group statements out at once. While one is out, the creates that arrive wait for it to return
 * and go together in the next: before, a turn's create that missed its group went alone, out of
 * step with the others for as long as the load lasted (a quarter of all creates, with 10 in
 * flight). Measured with one and with two out: two left the creates alone as before, one put nine
 * in ten into groups of 8 or 9 and halved the database's CPU per create again.
 */
export const inFlight = 1;

const stored = 'SELECT id FROM assets WHERE id = ?';

interface Member {
  asset: AssetRecord;
  events: readonly OutboxEvent[];
  resolve(result: CreateAssetResult): void;
  reject(error: unknown): void;
}

/**
 * Group commit for createAsset where one statement writes a listing with its events (PostgreSQL,
 * event-ctes.ts): the creates that arrive in one turn of the event loop (until setImmediate), up
 * to `groupLimit` and all with the same number of events, go to the database as one statement, a
 * multi-row `INSERT ... ON CONFLICT (slug) DO NOTHING RETURNING id` whose events and deliveries
 * are written only for the rows it inserted. One statement, autocommitted: the group commits
 * together or not at all, for one round trip and one run of the statement triggers (the kept
 * totals, the change rows), and each member is answered only once it has returned. Two members
 * with one slug: the first is created, the other `slug_taken`, as would be two calls one after
 * the other. A lone create, and one with another number of events than its turn's group, takes
 * `single`, as every create did before.
 *
 * When the group's statement fails (a foreign key, a check, a lost connection), nothing of it was
 * kept, and each member runs again on `single`, so that each gets the answer or error it would
 * have had alone: one member's bad category fails that member only.
 */
export function groupedCreates(db: SqlDatabase, eventCtes: EventCtes, single: ListingsPort['createAsset']): ListingsPort['createAsset'] {
  // Texts by number of events, then of rows: made once each (the named statement's key is the text).
  const texts: string[][] = [];
  const text = (rows: number, count: number) =>
    ((texts[count] ??= [])[rows] ??= `WITH created AS (${insertRowsInto(assets, rows)} ON CONFLICT (slug) DO NOTHING RETURNING id)${count ? `,\n    ${eventCtes.groupSql('created', rows, count)}` : ''}\n  SELECT id FROM created`);

  /** The member's create on its own, after its group failed. */
  const alone = async (member: Member, failure: unknown): Promise<CreateAssetResult> => {
    const result = await single(member.asset, member.events);
    // A connection lost after the group's COMMIT but before its answer hides a commit: the slug
    // is then taken by this member's own listing (ids are new), which was created. Any other
    // failure surely rolled back, and the answer alone stands.
    if (result.outcome === 'slug_taken' && isStorageUnavailable(failure) && (await db.all(stored, [member.asset.id])).length > 0) {
      return { outcome: 'created', asset: copyRecord(member.asset) };
    }
    return result;
  };

  const write = async (group: Member[]) => {
    if (group.length === 1) {
      const [member] = group as [Member];
      return single(member.asset, member.events).then(member.resolve, member.reject);
    }
    let inserted: Set<unknown>;
    try {
      const rows = await db.all(text(group.length, group[0]!.events.length), [
        ...group.flatMap((member) => encode(db.dialect, assets, member.asset)),
        ...eventCtes.groupParams(group.map((member) => ({ key: member.asset.id, events: member.events }))),
      ]);
      inserted = new Set(rows.map((row) => row.id));
    } catch (failure) {
      for (const member of group) alone(member, failure).then(member.resolve, member.reject);
      return;
    }
    for (const member of group) member.resolve(inserted.has(member.asset.id) ? { outcome: 'created', asset: copyRecord(member.asset) } : { outcome: 'slug_taken' });
  };

  let open: Member[] | null = null;
  let writing = 0;
  const send = (group: Member[]) => {
    if (open === group) open = null;
    writing++;
    void write(group).finally(() => {
      writing--;
      // A group kept open while the statements were out goes now, with all that joined it meanwhile.
      if (open && open.length > 0 && writing < inFlight) send(open);
    });
  };
  // At the end of its turn a group goes, unless `inFlight` statements are out: then it stays open
  // and takes the creates of the next turns too, until one of them returns (or it is full).
  const endOfTurn = (group: Member[]) => {
    if (open === group && writing < inFlight) send(group);
  };
  return (asset, events = []) => {
    if (open && open[0]!.events.length !== events.length) return single(asset, events);
    return new Promise<CreateAssetResult>((resolve, reject) => {
      if (!open) {
        const group: Member[] = [];
        open = group;
        setImmediate(() => endOfTurn(group));
      }
      open.push({ asset, events, resolve, reject });
      if (open.length === groupLimit) send(open);
    });
  };
}
