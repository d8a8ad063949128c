import type { Static, TSchema } from '@sinclair/typebox';
import * as v from 'valibot';
import { ConfigurationError, isApiError } from './errors.js';
import { validate } from './validation.js';

/** What is wrong with programmer input, one line per field: `port: port must be 0 to 65535`. */
export function optionProblems<S extends v.GenericSchema>(schema: S, input: unknown): { output: v.InferOutput<S> } | { problems: string[] } {
  // The first problem of a field is the useful one: `not a URL` makes `not http(s)` noise.
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return { output: result.output };
  return {
    problems: result.issues.map((issue) => {
      const path = v.getDotPath(issue);
      return path && !issue.message.startsWith(path) ? `${path}: ${issue.message}` : issue.message;
    }),
  };
}

/**
 * Parses programmer input (options, environment, CLI flags) with a valibot schema; on failure
 * throws a ConfigurationError that names each field and says what it must be.
 */
export function parseOptions<S extends v.GenericSchema>(schema: S, input: unknown, where: string): v.InferOutput<S> {
  const parsed = optionProblems(schema, input);
  if ('output' in parsed) return parsed.output;
  throw new ConfigurationError(where, parsed.problems.join('; '));
}

/**
 * Programmer input checked against a TypeBox schema, for a shape the wire shares (the account):
 * a refusal throws a ConfigurationError naming the field, below `prefix` when given.
 */
export function checkWithSchema<S extends TSchema>(schema: S, input: unknown, where: string, prefix = ''): Static<S> {
  try {
    return validate(schema, input, prefix);
  } catch (error) {
    if (isApiError(error)) throw new ConfigurationError(where, error.message);
    throw error;
  }
}
