import { rememberAnswers } from '../memo.js';

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

/** How deep stringifyWithRaw walks; below, JSON.stringify writes (a tool result's RawJson fields sit at 3 in a batch). */
const walkedDepth = 5;

/**
 * The JSON text of `value` as JSON.stringify writes it, with every RawJson's text in its place. The
 * top levels (the JSON-RPC envelope: a batch, a response, its result, the content list and its
 * items) are walked here; everything below them, and anything that is not a plain object or an
 * array, is written by JSON.stringify itself. The pieces are joined once at the end, which makes
 * one flat string where repeated `+=` would make a rope that every later reader flattens again.
 */
export function stringifyWithRaw(value: unknown): string {
  const parts: string[] = [];
  writeWithRaw(value, walkedDepth, parts);
  return parts.join('');
}

function writeWithRaw(value: unknown, depth: number, parts: string[]): void {
  if (value instanceof RawJson) {
    parts.push(value.text);
    return;
  }
  if (depth === 0 || value === null || typeof value !== 'object') {
    parts.push(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    parts.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) parts.push(',');
      if (omitted(value[i])) parts.push('null');
      else writeWithRaw(value[i], depth - 1, parts);
    }
    parts.push(']');
    return;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    parts.push(JSON.stringify(value));
    return;
  }
  let first = true;
  parts.push('{');
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const inner = (value as Record<string, unknown>)[key];
    if (omitted(inner)) continue;
    parts.push(first ? quotedKey(key) : `,${quotedKey(key)}`);
    first = false;
    writeWithRaw(inner, depth - 1, parts);
  }
  parts.push('}');
}

/** `"key":`, kept for the envelope's few names. */
const quotedKey = rememberAnswers((key: string) => `${JSON.stringify(key)}:`);

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}
