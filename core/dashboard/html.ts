/**
 * The dashboard's HTML: a tagged template that escapes every value it is given (text and attribute
 * values alike), so a listing's title or a reason typed by a moderator can never become markup.
 * What must go in as markup is said so: `raw(...)` for a string the dashboard wrote itself, or
 * another `html` fragment (a fragment is already escaped). Arrays join; null, undefined and false
 * render nothing, so `${cond && html`...`}` reads as it should.
 */

/** Markup that is already safe: the result of `html`, or what `raw` vouches for. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The text with &, <, >, " and ' as entities: safe as element text and as a quoted attribute's value. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => entities[c]!);

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** `html\`<p>${title}</p>\``: the values escaped, the literal parts as written. */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Markup the dashboard wrote itself (never a value from a request or the store). */
export const raw = (markup: string): Html => new Html(markup);
