import { columnList, columnsOf, sqlName, type RecordTable } from './tables.js';

/** `INSERT INTO t (every column) VALUES (?, ...)`: parameters are `encode(dialect, t, record)`. */
export const insertInto = <R>(t: RecordTable<R>) => `INSERT INTO ${t.name} (${columnList(t)}) VALUES (${t.fields.map(() => '?').join(', ')})`;

/** `INSERT INTO t (every column) VALUES (...), (...)` for `rows` records: parameters are their encodings one after another. */
export const insertRowsInto = <R>(t: RecordTable<R>, rows: number) =>
  `INSERT INTO ${t.name} (${columnList(t)}) VALUES ${Array.from({ length: rows }, () => `(${t.fields.map(() => '?').join(', ')})`).join(', ')}`;

/** `UPDATE t SET every other column WHERE key = ?` (and `where`): parameters are `encode(dialect, t, record, updatedColumns(t))`, then those of `where`. */
export const updateOf = <R>(t: RecordTable<R>, where = '') =>
  `UPDATE ${t.name} SET ${columnsOf(t)
    .filter((c) => c !== t.key)
    .map((c) => `${sqlName(c)} = ?`)
    .join(', ')} WHERE ${t.key} = ?${where}`;
