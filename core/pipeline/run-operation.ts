import { ApiError } from '../errors.js';
import type { AnyOperation, Caller, Operation, OperationContext, RunContext } from '../operations/context.js';
import { validate } from '../validation.js';
import { retryKeyOf, runOnce, type RetryKey } from './idempotency.js';

/**
 * Results of operations marked readsStorageOnly, by operation, account, site and input: at most
 * 4,096, and at most 8 MB of JSON text together (with their values, a few times that in memory).
 * Once full, a result is kept only when asked for a second time (core/read-cache.ts: admitSecondAsk).
 */
const keptResults = { maxEntries: 4096, maxWeight: 8 * 1024 * 1024, weigh: (result: OperationResult) => result.json.length, admitSecondAsk: true };

/**
 * The one path every surface takes into an operation, in the contract's order: scope (403), the
 * operation's account guard (403), then input (400; given, or read by the function given only
 * once the checks before it passed), then the operation itself (404, 409, 422).
 * Authentication (401) happens before, where the surface knows its credentials: a developer token
 * or session (OperationContext) or the admin surface's service key (core/admin/admin-operation.ts). The result of a
 * read-only operation is kept until storage changes (core/read-cache.ts); the checks before it
 * run on every call all the same. A write with an idempotency key (`retry`) runs once per account
 * and key, and a retry of it gets the first answer (core/pipeline/idempotency.ts).
 */
export async function runOperation<C extends RunContext = OperationContext>(
  context: C,
  operation: C extends OperationContext ? AnyOperation : Operation<any, unknown, any, C>,
  input: Record<string, unknown> | (() => Promise<Record<string, unknown>>),
  retry?: { key: unknown; surface: RetryKey['surface'] },
): Promise<OperationResult> {
  if (!context.caller.scopes.has(operation.scope)) {
    throw new ApiError('FORBIDDEN', `This token lacks the scope ${operation.scope}.`);
  }
  // Guards, kept results and idempotency keys are the developer API's (an account's); the admin
  // surface's operations declare none of them, so what follows reads ctx as a developer's context.
  const ctx = context as unknown as OperationContext;
  operation.guard?.(ctx.caller as Caller);
  const retryKey = retry && retryKeyOf(retry.key, retry.surface);
  const valid = validate(operation.input, typeof input === 'function' ? await input() : input);
  if (!operation.readsStorageOnly) {
    // A change with events nudges the webhook worker itself, once committed (core/changes/commit.ts).
    const run = async () => new OperationResult(await operation.run(ctx, valid));
    return retryKey ? runOnce(ctx, retryKey, { operation: operation.name, input: valid }, run, OperationResult.replayed) : run();
  }
  const kept = ctx.ports.reads.area<OperationResult>('results', keptResults);
  const key = `${operation.name}\n${ctx.caller.account.id}\n${ctx.siteUrl}\n${inputKey(valid)}`;
  const known = kept.get(key, ctx.stamp);
  if (known) return known;
  // Shared by every request that asks the same: the surfaces only serialize `value`, never change it.
  const result = new OperationResult(await operation.run(ctx, valid));
  kept.set(key, result, ctx.stamp);
  return result;
}

/**
 * A validated input as a key: different inputs never share one. The flat inputs of read operations
 * (strings, numbers, booleans) are spelled with length prefixes, which is cheaper than JSON.stringify
 * (a call into the runtime on every request); anything else is its JSON text, which starts with
 * `{` where a flat spelling starts with a digit or is empty, so the two kinds never meet.
 */
function inputKey(input: Record<string, unknown>): string {
  let key = '';
  for (const name in input) {
    if (!Object.prototype.hasOwnProperty.call(input, name)) continue;
    const value = input[name];
    if (typeof value === 'string') key += `${name.length}:${name}s${value.length}:${value}`;
    else if (typeof value === 'number' || typeof value === 'boolean') key += `${name.length}:${name}${typeof value === 'number' ? 'n' : 'b'}${value};`;
    else return JSON.stringify(input);
  }
  return key;
}

/**
 * An operation's result and its JSON, made at most once however many requests send it: REST
 * answers with the text, MCP with both.
 */
export class OperationResult {
  #json: string | undefined;
  #contentJson: string | undefined;
  /** Whether this is the kept answer of an earlier request with the same idempotency key. */
  replayed = false;
  constructor(readonly value: unknown) {}

  /** A kept answer (core/pipeline/idempotency.ts): the same JSON, byte for byte. */
  static replayed(json: string): OperationResult {
    const result = new OperationResult(JSON.parse(json));
    result.#json = json;
    result.replayed = true;
    return result;
  }

  get json(): string {
    return (this.#json ??= JSON.stringify(this.value));
  }
  /** MCP's content list for this result, as JSON text: one text item holding the JSON, escaped once. */
  get contentJson(): string {
    return (this.#contentJson ??= `[{"type":"text","text":${JSON.stringify(this.json)}}]`);
  }
}
