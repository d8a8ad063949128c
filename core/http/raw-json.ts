/**
 * JSON that is already text, embedded as it is when a larger answer is serialized: what Node 22's
 * `JSON.rawJSON` does, for every runtime. A tool result carries its listing's JSON twice (as text
 * and as structuredContent); with this, the listing is serialized once and kept (OperationResult).
 */
export class RawJson {
  /** Only stringifyWithRaw writes it right: JSON.stringify alone would write `{"text":...}`. */
  constructor(readonly text: string) {}
}

/**
 * Serializes `value` as JSON.stringify does, writing every RawJson's text in its place. `nonce`
 * marks the placeholders: a string no client can guess (random, per marketplace), so that no
 * string in the data can be taken for one.
 */
export function stringifyWithRaw(value: unknown, nonce: string): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, inner: unknown) => (inner instanceof RawJson ? `${nonce}${raws.push(inner.text) - 1}` : inner));
  if (raws.length === 0) return text;
  // JSON.stringify visits values in the order it writes them: the placeholders come in push order.
  let out = '';
  let from = 0;
  for (let i = 0; i < raws.length; i++) {
    const placeholder = `"${nonce}${i}"`;
    const at = text.indexOf(placeholder, from);
    out += text.slice(from, at) + raws[i];
    from = at + placeholder.length;
  }
  return out + text.slice(from);
}
