/**
 * What the SQL adapters (adapters/sqlite, adapters/postgres) share: a record table (a table and how
 * each field of its record maps to a column of the same name, in the adapter's own column kinds),
 * the record's fields as parameters, and the studio record read back from its row.
 */
import type { StudioRecord } from '../core/ports/studio.js';
import type { StudioKind } from '../core/studio/resources.js';

/** A table and how each field of its record maps to a column of the same name. */
export interface SqlRecordTable<R, Kind extends string> {
  name: string;
  key: keyof R & string;
  columns: { [K in keyof R]-?: Kind };
  /** The columns as a list, for decoding rows without walking an object's keys. */
  fields: [column: string, kind: Kind][];
}

/** The table maker of an adapter whose columns are of the kinds `Kind`. */
export function recordTables<Kind extends string>() {
  return <R>(name: string, key: keyof R & string, columns: { [K in keyof R]-?: Kind }): SqlRecordTable<R, Kind> => ({
    name,
    key,
    columns,
    fields: Object.entries(columns) as [string, Kind][],
  });
}

export function columnsOf<R>(t: SqlRecordTable<R, string>): (keyof R & string)[] {
  return Object.keys(t.columns) as (keyof R & string)[];
}

/** The columns, comma-separated, in record order: an INSERT's column list. */
export const columnList = <R>(t: SqlRecordTable<R, string>): string => columnsOf(t).join(', ');

/** Every column but the key, then the key: an UPDATE's parameters are `encode(t, r, updatedColumns(t))`. */
export const updatedColumns = <R>(t: SqlRecordTable<R, string>): (keyof R & string)[] => [...columnsOf(t).filter((c) => c !== t.key), t.key];

/** The record's fields as parameters, in column order (`only` picks and orders a subset), each encoded by its kind. */
export function encodeWith<Kind extends string, V>(encodeValue: (kind: Kind, value: unknown) => V) {
  return <R>(t: SqlRecordTable<R, Kind>, record: R, only: (keyof R & string)[] = columnsOf(t)): V[] =>
    only.map((column) => encodeValue(t.columns[column], record[column]));
}

/** A studio_records row as the record: JSON columns parsed (or taken as the driver parsed them), numbers as numbers. */
export function decodeStudioRow(row: Record<string, unknown>): StudioRecord {
  const json = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;
  return {
    id: row.id as string,
    kind: row.kind as StudioKind,
    owner_id: row.owner_id as string,
    project_id: row.project_id as string,
    parent_id: row.parent_id as string,
    position: row.position === null ? null : Number(row.position),
    data: json<Record<string, unknown>>(row.data),
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
    revision: Number(row.revision),
    keys: json<string[]>(row.keys),
  };
}
