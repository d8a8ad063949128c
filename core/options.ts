import * as v from 'valibot';
import { ConfigurationError } from './errors.js';

/**
 * Parses programmer input (options, environment, CLI flags) with a valibot schema; on failure
 * throws a ConfigurationError that names each field and says what it must be.
 */
export function parseOptions<S extends v.GenericSchema>(schema: S, input: unknown, where: string): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const problems = result.issues.map((issue) => {
    const path = v.getDotPath(issue);
    return path && !issue.message.startsWith(path) ? `${path}: ${issue.message}` : issue.message;
  });
  throw new ConfigurationError(where, problems.join('; '));
}
