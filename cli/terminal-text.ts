/**
 * Text for a terminal (docs/security.md, "Text fields"): what a seller wrote (a title, a display
 * name, a webhook URL, a delivery's error) reaches a moderator's terminal through `marketkit admin`,
 * and a terminal acts on some characters instead of showing them: ESC starts a control sequence
 * (`\x1b[2K` erases the line), CR returns to its start, LF starts a new one, the bidirectional
 * controls reorder what follows. Every such character is shown as its `\uXXXX` escape, which is
 * also a valid JSON escape, so `--json` output stays JSON.
 */

/**
 * What a terminal may act on: C0 controls, DEL, C1 controls (CSI among them), line and paragraph
 * separators, the bidirectional marks, embeddings, overrides and isolates, and lone surrogates.
 */
const actedOn = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const actedOnButLineFeed = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const escape = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One value on a line: every character a terminal could act on escaped, line feeds included. */
export function terminalText(value: unknown): string {
  return String(value).replace(actedOn, escape);
}

/** Every string in `value` (a result to render) through terminalText; the rest as it is. */
export function terminalValues<T>(value: T): T {
  if (typeof value === 'string') return terminalText(value) as T;
  if (Array.isArray(value)) return value.map(terminalValues) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [terminalText(key), terminalValues(field)])) as T;
}

/**
 * A writer of lines that escapes, in whatever it is given, everything a terminal could act on but
 * the line feeds our own multi-line output (help, indented JSON) is made of: the last guard of every
 * command's output, behind the renderers' own escaping of each value.
 */
export function terminalWriter(write: (text: string) => void): (text: string) => void {
  return (text) => write(text.replace(actedOnButLineFeed, escape));
}
