/**
 * JSON that is already text, embedded as it is when a larger answer is serialized: what Node 22's
 * `JSON.rawJSON` does, for every runtime. A tool result carries its listing's JSON twice (as text
 * and as structuredContent); with this, the listing is serialized once and kept (OperationResult).
 */
export class RawJson {
  constructor(readonly text: string) {}

  /** Only stringifyWithRaw writes it, within its depth; anything else serializing it is a bug, said at once. */
  toJSON(): never {
    throw new TypeError('RawJson is written by stringifyWithRaw only, at most 5 levels deep');
  }
}

/** How deep stringifyWithRaw walks; below, JSON.stringify writes (a JSON-RPC answer's tool result text sits at 5 in a batch). */
const walkedDepth = 5;

/**
 * The JSON text of `value` as JSON.stringify writes it, with every RawJson's text in its place. The
 * top levels (the JSON-RPC envelope: a batch, a response, its result, the content list and its
 * items) are walked here; everything below them, and anything that is not a plain object or an
 * array, is written by JSON.stringify itself.
 */
export function stringifyWithRaw(value: unknown, depth = walkedDepth): string {
  if (value instanceof RawJson) return value.text;
  if (depth === 0 || value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + (omitted(value[i]) ? 'null' : stringifyWithRaw(value[i], depth - 1));
    return `${out}]`;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return JSON.stringify(value);
  let out = '{';
  for (const key of Object.keys(value)) {
    const inner = (value as Record<string, unknown>)[key];
    if (omitted(inner)) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${stringifyWithRaw(inner, depth - 1)}`;
  }
  return `${out}}`;
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}
