import { ApiError } from '../errors.js';
import type { AnyOperation, OperationContext } from '../operations/context.js';
import { validate } from '../validation.js';

/**
 * The one path every surface takes into an operation, in the contract's order: scope (403), the
 * operation's account guard (403), then input (400), then the operation itself (404, 409, 422).
 * Authentication (401) happens before, where the surface knows its credentials.
 */
export async function runOperation(
  ctx: OperationContext,
  operation: AnyOperation,
  readInput: () => Promise<Record<string, unknown>> | Record<string, unknown>,
): Promise<unknown> {
  if (!ctx.caller.scopes.has(operation.scope)) {
    throw new ApiError('FORBIDDEN', `This token lacks the scope ${operation.scope}.`);
  }
  operation.guard?.(ctx.caller);
  const input = validate(operation.input, await readInput());
  return operation.run(ctx, input);
}
