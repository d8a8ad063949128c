import { FormatRegistry, Type, type TSchema, type TLiteral, type TUnion, type TNull } from '@sinclair/typebox';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

// Formats must be known to TypeBox before any schema using them is checked.
if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (value) => uuidPattern.test(value));
if (!FormatRegistry.Has('date-time')) {
  FormatRegistry.Set('date-time', (value) => dateTimePattern.test(value) && !Number.isNaN(Date.parse(value)));
}
/**
 * The one definition of a web address, for every URL field a client writes (website, socials,
 * hire.contact): an absolute http or https URL, with no spaces or control characters (which a
 * browser would strip or mend before reading the scheme). Nothing else: no javascript:, data:,
 * vbscript:, file: or mailto:.
 */
export function isWebUrl(value: string): boolean {
  if (value.includes(' ') || !isWebLinkText(value)) return false;
  try {
    return /^https?:$/.test(new URL(value).protocol);
  } catch {
    // Not an absolute URL: no web link, which is the answer asked for.
    return false;
  }
}

/** No control, line-breaking or bidirectional-control character and no lone surrogate: what a terminal or a page could act on. */
function isWebLinkText(value: string): boolean {
  return !/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(value);
}

/**
 * A field that holds a handle or a web address (socials, hire.contact): any text without control
 * characters; if a browser would read a URL scheme at its start (`javascript:`, ` JavaScript:`,
 * `data:`, `mailto:`), it must be a web address by isWebUrl. So `@castle`, `castle-works`,
 * `me@castle.example` and `https://github.com/castle` are fine, and no value turns into a script
 * or another scheme when a page puts it in a link.
 */
export function isWebLink(value: string): boolean {
  if (!isWebLinkText(value)) return false;
  // What the WHATWG URL parser reads as the scheme, after the leading spaces it strips.
  return !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value.replace(/^ +/, '')) || isWebUrl(value);
}

/**
 * What a value must be, in words, where a pattern cannot say it (`[rule]: 'a colour as #rrggbb'`):
 * the validation message's wording (core/validation.ts). A symbol key, so that no published schema
 * (OpenAPI, MCP tools) carries it: strict JSON Schema validators refuse keywords they do not know.
 */
export const rule: unique symbol = Symbol.for('marketkit.rule');

/**
 * The `web-link` format as standard JSON Schema, for published schemas (publishedNode): no control
 * characters, and no URL scheme but http and https. The server checks more (isWebLink: an http(s)
 * value must be a whole URL).
 */
export const webLinkPattern = '^(?! *(?![Hh][Tt][Tt][Pp][Ss]?:)[A-Za-z][A-Za-z0-9+.-]*:)[^\\u0000-\\u001f\\u007f]*$';

/**
 * The schema to publish in place of a node that is checked otherwise than it reads: the batch's
 * items are each validated on their own (one bad item is that item's 422, not the batch's 400), yet
 * a typed client should check them as create bodies.
 */
export const publishedAs: unique symbol = Symbol.for('marketkit.publishedAs');

/** A schema node as published: standard JSON Schema keywords only (the formats of ours become patterns). */
export function publishedNode<T>(node: T): T {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  const replacement = (node as Record<symbol, unknown>)[publishedAs];
  if (replacement) return replacement as T;
  if ((node as { format?: unknown }).format !== 'web-link') return node;
  const { format: _ours, ...rest } = node as Record<string, unknown>;
  return { ...rest, pattern: webLinkPattern } as T;
}

if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', isWebUrl);
if (!FormatRegistry.Has('web-link')) FormatRegistry.Set('web-link', isWebLink);

/** An http or https URL field (isWebUrl): the profile's website. */
export const WebUrl = (maxLength: number, description = 'An http or https URL.') =>
  Type.String({ maxLength, format: 'uri', description, [rule]: `an http or https URL of at most ${maxLength} characters` });

/** A handle or an http(s) URL (isWebLink): socials and hire.contact. */
export const WebLink = (maxLength: number, description = 'A handle (such as @castle) or an http or https URL; no other URL scheme.') =>
  Type.String({
    maxLength,
    format: 'web-link',
    description,
    [rule]: `a handle or an http or https URL of at most ${maxLength} characters (no other URL scheme, no control characters)`,
  });

export const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
export const Timestamp = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });

/**
 * The largest magnitude of any number a client sends, whatever its schema: exact in JavaScript and
 * within a 64-bit integer column (SQLite's INTEGER, PostgreSQL's bigint). core/validation.ts
 * refuses anything past it in every input; a field whose column is narrower says so in its schema.
 */
export const maxInputNumber = Number.MAX_SAFE_INTEGER;

/** The most a list may skip: what every SQL integer type holds (docs/rest.md, "Pagination"). */
export const maxOffset = 2_147_483_647;

/** How many items of a list to skip, the one `offset` of every list (REST queries, MCP tools, the admin surface). */
export const Offset = (options: { description?: string; default?: number } = {}) =>
  Type.Integer({ minimum: 0, maximum: maxOffset, description: 'Default 0.', ...options });

/** Where a cursored list's page starts: a previous page's `pagination.next_cursor` (core/operations/list-cursor.ts). */
export const Cursor = () =>
  Type.String({
    minLength: 1,
    maxLength: 512,
    description: "Continue after a previous page: its next_cursor, as it is. Pages by cursor never skip or repeat an item while others are created or deleted. Not with offset.",
  });

/** `T | null`, the shape of every nullable field. */
export const Nullable = <T extends TSchema>(schema: T): TUnion<[T, TNull]> => Type.Union([schema, Type.Null()]);

/** A string that is one of `values`: a union of literals, which is JSON Schema `anyOf` of `const`. */
export const StringEnum = <const V extends readonly string[]>(values: V, options: { description?: string } = {}) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  ) as TUnion<TLiteral<V[number]>[]>;

export const ErrorDetailSchema = Type.Object({ path: Type.String(), message: Type.String() }, { additionalProperties: false });

export const ErrorBodySchema = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, for a person.' }),
    code: Type.String({ description: 'A stable code from the error table, for a program.' }),
    details: Type.Optional(Type.Array(ErrorDetailSchema)),
  },
  { $id: 'Error', additionalProperties: false },
);

/** An object schema that refuses fields it does not list: unknown and read-only fields are 400. */
export const Strict = <P extends Record<string, TSchema>>(properties: P, options: Record<string, unknown> = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });
