import type { TSchema, Static } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { ApiError, type ErrorDetail } from './errors.js';
import { maxInputNumber, rule } from './schemas/common.js';
import { textFormatWords } from './schemas/text.js';

interface Checker {
  Check(value: unknown): boolean;
  Errors(value: unknown): Iterable<ValueError>;
}

const checkers = new WeakMap<TSchema, Checker>();

function checkerFor(schema: TSchema): Checker {
  let checker = checkers.get(schema);
  if (!checker) {
    try {
      checker = TypeCompiler.Compile(schema) as TypeCheck<TSchema>;
    } catch {
      // Hosts that forbid code generation (some edge runtimes) still get the same answers.
      checker = { Check: (value) => Value.Check(schema, value), Errors: (value) => Value.Errors(schema, value) };
    }
    checkers.set(schema, checker);
  }
  return checker;
}

/** `/tags/3/name` -> `tags[3].name`, the way a person writes a field. */
function fieldPath(pointer: string, prefix = ''): string {
  let out = prefix;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(key) ? `[${key}]` : out ? `.${key}` : key;
  }
  return out || 'body';
}

/** What a value of `schema` must be, in words: "a string of 3 to 200 characters". */
export function describeSchema(schema: TSchema): string {
  // A rule that a pattern cannot say in words carries its own (core/schemas/common.ts, `rule`).
  const words = (schema as unknown as Record<symbol, unknown>)[rule];
  if (typeof words === 'string') return words;
  if (Array.isArray(schema.anyOf)) {
    const literals = schema.anyOf.filter((s: TSchema) => 'const' in s).map((s: TSchema) => String(s.const));
    const nullable = schema.anyOf.some((s: TSchema) => s.type === 'null');
    const rest = schema.anyOf.filter((s: TSchema) => !('const' in s) && s.type !== 'null');
    const parts = [...(literals.length ? [`one of ${literals.join(', ')}`] : []), ...rest.map(describeSchema)];
    return parts.join(' or ') + (nullable ? ' or null' : '');
  }
  if (schema.format === 'uuid') return 'a UUID';
  if (schema.format === 'date-time') return 'an ISO 8601 date-time';
  if (schema.format === 'uri') return 'an http or https URL';
  switch (schema.type) {
    case 'string': {
      const { minLength: min, maxLength: max } = schema;
      if (schema.pattern) return `a string matching ${schema.pattern}`;
      if (min !== undefined && max !== undefined) return `${min} to ${max} characters`;
      if (max !== undefined) return `at most ${max} characters`;
      if (min !== undefined) return `at least ${min} characters`;
      return 'a string';
    }
    case 'integer':
    case 'number': {
      const noun = schema.type === 'integer' ? 'an integer' : 'a number';
      const { minimum: min, maximum: max } = schema;
      if (min !== undefined && max !== undefined) return `${noun} from ${min} to ${max}`;
      if (min !== undefined) return `${noun} of at least ${min}`;
      if (max !== undefined) return `${noun} of at most ${max}`;
      return noun;
    }
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'array': {
      const { minItems: min, maxItems: max } = schema;
      if (min !== undefined && max !== undefined) return `a list of ${min} to ${max} items`;
      if (max !== undefined) return `a list of at most ${max} items`;
      if (min !== undefined) return `a list of at least ${min} items`;
      return 'a list';
    }
    case 'object':
      return 'an object';
    default:
      return 'a valid value';
  }
}

function detailOf(error: ValueError, prefix: string): ErrorDetail {
  const path = fieldPath(error.path, prefix);
  switch (error.type) {
    case ValueErrorType.ObjectAdditionalProperties:
      return { path, message: 'is not a field that can be set here' };
    case ValueErrorType.ObjectRequiredProperty:
      return { path, message: 'is required' };
    case ValueErrorType.ObjectMinProperties:
      return { path, message: 'must contain at least one field' };
    case ValueErrorType.StringFormat: {
      const words = textFormatWords[error.schema.format as string];
      return { path, message: words ?? `must be ${describeSchema(error.schema)}` };
    }
    case ValueErrorType.Union: {
      // A nullable text field (`description`): a string of the right length that fails its text format says why.
      const words = typeof error.value === 'string' ? textFormatFailure(error.schema, error.value) : undefined;
      return { path, message: words ?? `must be ${describeSchema(error.schema)}` };
    }
    default:
      return { path, message: `must be ${describeSchema(error.schema)}` };
  }
}

/** The words of the text format (core/schemas/text.ts) a string member of `union` fails with `value` alone; undefined otherwise. */
function textFormatFailure(union: TSchema, value: string): string | undefined {
  for (const member of (union.anyOf ?? []) as TSchema[]) {
    if (member.type !== 'string' || !textFormatWords[member.format as string]) continue;
    const [first] = checkerFor(member).Errors(value);
    if (first?.type === ValueErrorType.StringFormat) return textFormatWords[member.format as string];
  }
  return undefined;
}

/** The details of every field that fails `schema`, one per field, in the order found. */
function validationDetails(schema: TSchema, value: unknown, prefix = ''): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const error of checkerFor(schema).Errors(value)) {
    // A missing field is also reported as "not a string"; the first word about a field is the useful one.
    const detail = detailOf(error, prefix);
    if (seen.has(detail.path)) continue;
    seen.add(detail.path);
    details.push(detail);
    if (details.length >= 20) break;
  }
  return details;
}

/**
 * What no field may hold whatever its schema: U+0000 in a string or a key (PostgreSQL's text cannot
 * keep it, so the other stores refuse it too and all answer alike), or a number past
 * maxInputNumber. The first such field and what is wrong with it; null when there is none.
 */
function beyondEveryStore(value: unknown, path: string, depth = 0): ErrorDetail | null {
  if (typeof value === 'string') return value.includes('\u0000') ? { path: path || 'body', message: 'must not contain the character U+0000' } : null;
  if (typeof value === 'number') {
    return Number.isFinite(value) && Math.abs(value) <= maxInputNumber ? null : { path: path || 'body', message: `must be a number from -${maxInputNumber} to ${maxInputNumber}` };
  }
  // A schema-checked value is as deep as its schema; the depth bound only guards free-form parts.
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = beyondEveryStore(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const at = path ? `${path}.${key}` : key;
    if (key.includes('\u0000')) return { path: at, message: 'is a field name with the character U+0000' };
    const found = beyondEveryStore((value as Record<string, unknown>)[key], at, depth + 1);
    if (found) return found;
  }
  return null;
}

/** Refuses (400 naming `path`) a value no store can hold: U+0000, or a number past maxInputNumber. */
export function checkStorable(value: unknown, path = ''): void {
  const found = beyondEveryStore(value, path);
  if (found) fail(found, [found]);
}

/** `value` as a `Static<S>`, or INVALID_INPUT naming the first failing field (all in details). */
export function validate<S extends TSchema>(schema: S, value: unknown, prefix = ''): Static<S> {
  if (checkerFor(schema).Check(value)) {
    // What the schema allows may still be what no store holds (U+0000, a number past 2^53).
    checkStorable(value, prefix);
    return value as Static<S>;
  }
  const details = validationDetails(schema, value, prefix);
  const first = details[0] ?? { path: prefix || 'body', message: 'is not valid' };
  return fail(first, details);
}

function fail(first: ErrorDetail, details: ErrorDetail[]): never {
  throw new ApiError('INVALID_INPUT', `${first.path} ${first.message}`, { details });
}
