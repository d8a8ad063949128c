import type { TSchema, Static } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { ApiError, type ErrorDetail } from './errors.js';
import { rule } from './schemas/common.js';

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
    default:
      return { path, message: `must be ${describeSchema(error.schema)}` };
  }
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

/** `value` as a `Static<S>`, or INVALID_INPUT naming the first failing field (all in details). */
export function validate<S extends TSchema>(schema: S, value: unknown, prefix = ''): Static<S> {
  if (checkerFor(schema).Check(value)) return value as Static<S>;
  const details = validationDetails(schema, value, prefix);
  const first = details[0] ?? { path: prefix || 'body', message: 'is not valid' };
  return fail(first, details);
}

function fail(first: ErrorDetail, details: ErrorDetail[]): never {
  throw new ApiError('INVALID_INPUT', `${first.path} ${first.message}`, { details });
}
