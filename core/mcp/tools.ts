/**
 * The hosted tools, derived from the operations' declarations (their `tool`: what an assistant
 * reads about each). A tool's arguments are its operation's input as they are (a listing is `asset_id` on
 * both), so the schemas, checks, scopes and error codes are REST's, through `runOperation`. The
 * local process (`marketkit mcp`) offers the same rows, sent over REST by their operation's route.
 */
import { Type } from '@sinclair/typebox';
import { OperationResult, runOperation } from '../pipeline/run-operation.js';
import { checkHealth } from '../operations/health.js';
import { rememberAnswers } from '../memo.js';
import { developerOperations } from '../operations/index.js';
import type { AnyOperation, OperationContext } from '../operations/context.js';
import { Strict, Uuid } from '../schemas/common.js';
import { HealthSchema } from '../schemas/health.js';
import { validate } from '../validation.js';
import { reads, toolDefinition, withRetryKey, type Tool, type ToolDefinition, type ToolText } from '../pipeline/tool.js';

/** A tool of the hosted endpoint runs in process, for the caller its request authenticated. */
type HostedTool = Tool<OperationContext, OperationResult>;

/** A write tool's idempotency_key is its REST call's Idempotency-Key (core/pipeline/idempotency.ts). */
function operationTool(operation: AnyOperation, { name, title, description, annotations }: ToolText): HostedTool {
  return withRetryKey({
    name,
    title,
    description,
    annotations,
    input: operation.input,
    output: operation.output,
    operation,
    run: (args, ctx) => {
      if (!('idempotency_key' in args)) return runOperation(ctx, operation, args);
      const { idempotency_key: key, ...input } = args;
      return runOperation(ctx, operation, input, { key, surface: 'mcp' });
    },
  });
}

const NoArguments = Type.Object({}, { additionalProperties: false });

/** Not an operation (so rate-limited as a read): any valid token may call it, whatever its scopes. */
const healthCheck: HostedTool = {
  name: 'health_check',
  title: 'Check the connection',
  description:
    'Confirms that the token is accepted and that the marketplace database and file store answer. Returns ok, the ' +
    "caller's user_id and each check. Call it first when setting up, or when other tools fail unexpectedly.",
  annotations: reads,
  input: NoArguments,
  output: Strict({
    ok: Type.Boolean({ description: 'True when every check passed.' }),
    user_id: Uuid('The account the token belongs to.'),
    checks: HealthSchema.properties.checks,
  }),
  async run(args, ctx) {
    validate(NoArguments, args);
    const { checks } = await checkHealth(ctx.ports, ctx.settings);
    return healthAnswer(`${checks.storage} ${checks.blobs} ${ctx.caller.account.id}`);
  },
};

/**
 * The answer for one outcome of the checks and one caller, its JSON made once: the checks run on
 * every call, but their outcome has four values, and serializing it anew would be the largest part
 * of the call's own work (docs/performance.md, "MCP health_check").
 */
const healthAnswer = rememberAnswers((key: string): OperationResult => {
  const [storage, blobs, userId] = key.split(' ') as ['ok' | 'error', 'ok' | 'error', string];
  return new OperationResult({ ok: storage === 'ok' && blobs === 'ok', user_id: userId, checks: { storage, blobs } });
}, 256);

/**
 * The hosted tools, in the order an assistant meets them: health_check, then the tool each
 * operation declares (core/operations/), except those offered by the local process only.
 */
export const hostedTools: readonly HostedTool[] = [
  healthCheck,
  ...developerOperations.flatMap((operation) => (operation.tool && !operation.tool.localOnly ? [operationTool(operation, operation.tool)] : [])),
];

export const toolsByName: ReadonlyMap<string, HostedTool> = new Map(hostedTools.map((tool) => [tool.name, tool]));

/** The tools as tools/list shows them, built once. */
export const toolDefinitions: readonly ToolDefinition[] = hostedTools.map(toolDefinition);
