/**
 * The one tool type, for every surface that offers MCP tools: the hosted endpoint (its tools run
 * their operation in process, core/mcp/tools.ts), and the local process (`marketkit mcp`, whose
 * tools reach the marketplace through the REST API: the hosted listing tools and Creator Studio's
 * derived from the route table, the admin surface's from its action table, and a few of its own).
 * A tool differs between surfaces only in what `run` does and the context it runs in.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { apiBase, type RestRoute } from './route.js';
import type { Method } from './router.js';
import type { AnyOperation } from '../operations/context.js';
import { ErrorBodySchema, publishedNode } from '../schemas/common.js';

import type { ToolAnnotations } from '../operations/declaration.js';

// The hints and their three usual sets are declared with the operations (core/operations/declaration.ts).
export { adds, reads, replaces, type ToolAnnotations } from '../operations/declaration.js';

/** The REST request that carries a tool's arguments: `:param` in `path` is filled from the argument `params[param]`. */
export interface RestCall {
  method: Method;
  /** The whole path, API base included: `/api/v1/studio/cards/:id/move`, `/api/admin/accounts/:id`. */
  path: string;
  params: Record<string, string>;
}

/** What a tool that is a REST request runs with: a client of that API (the typed client's `request`). */
export interface RestContext {
  client: {
    request(
      method: string,
      path: string,
      options: { query?: Record<string, string | number | undefined>; body?: unknown; idempotencyKey?: string },
    ): Promise<unknown>;
  };
}

/**
 * A write tool's `idempotency_key` argument: the REST API's Idempotency-Key (core/pipeline/idempotency.ts).
 * Its rule is in the description, as JSON Schema keywords beyond the standard ones are refused by
 * strict validators.
 */
const IdempotencyKeyArgument = Type.String({
  minLength: 1,
  maxLength: 255,
  description:
    'Optional. Any unique string (a UUID) naming this one call, 1 to 255 printable ASCII characters. When you retry the call ' +
    'after an error or a timeout, send the same key: the retry then returns the first result instead of doing the write twice. ' +
    'A new call needs a new key.',
});

/** What a write tool's description adds, so that an assistant retries it safely. */
const retryAdvice =
  ' Retrying: pass idempotency_key (a fresh UUID for each new call) and reuse it when you send the same call again after an error or timeout.';

/**
 * The tool of a write takes `idempotency_key` beside its operation's input, and says so; a read's
 * arguments and text are its operation's as they are.
 */
export function withRetryKey<T extends Pick<Tool, 'input' | 'description' | 'annotations'>>(tool: T): T {
  if (tool.annotations.readOnlyHint) return tool;
  const { input } = tool;
  return {
    ...tool,
    description: tool.description + retryAdvice,
    input: { ...input, properties: { ...input.properties, idempotency_key: IdempotencyKeyArgument } },
  };
}

/** One MCP tool, on whichever surface: what tools/list shows of it, and how it runs there. */
export interface Tool<Context = RestContext, Result = unknown> {
  /** `create_asset`, `move_card`, `admin_approve`. */
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  input: TSchema;
  output: TSchema;
  /** The operation the tool is, where it is one: its scope and request class are the tool's (without one, a read). */
  operation?: AnyOperation;
  /** The REST request the tool sends, where it is one. */
  rest?: RestCall;
  /** Runs the tool; refusals are thrown (ApiError, or the client's MarketKitError). */
  run(args: Record<string, any>, context: Context): Promise<Result>;
}

/** What an assistant reads about a tool; the rest follows from its operation or its request. */
export type ToolText = Pick<Tool, 'name' | 'title' | 'description' | 'annotations'>;

/**
 * Sends a tool's REST request: path parameters from their arguments, the other arguments as the
 * query (GET, DELETE) or the JSON body. The client's own base is the API's, so the path goes
 * without it.
 */
function send(rest: RestCall, args: Record<string, unknown>, { client }: RestContext): Promise<unknown> {
  const { idempotency_key: idempotencyKey, ...others } = args as Record<string, unknown> & { idempotency_key?: string };
  let path = rest.path.replace(/^\/api\/[^/]+/, '');
  for (const [param, field] of Object.entries(rest.params)) {
    path = path.replace(`:${param}`, encodeURIComponent(String(others[field])));
    delete others[field];
  }
  const bodyless = rest.method === 'GET' || rest.method === 'DELETE';
  const key = idempotencyKey === undefined ? {} : { idempotencyKey };
  return client.request(rest.method, path, bodyless ? { query: others as Record<string, string>, ...key } : { body: others, ...key });
}

/** A tool that is one REST request, for a process that reaches the marketplace through its API. */
export function restTool(tool: Omit<Tool, 'rest' | 'run'>, rest: RestCall): Tool {
  return { ...tool, rest, run: (args, context) => send(rest, args, context) };
}

/** The tool of a route of the REST table: its operation's input and output, sent as that route's request. */
export function routeTool(route: RestRoute, text: ToolText): Tool {
  const { operation } = route;
  const { name, title, description, annotations } = text;
  return restTool(
    withRetryKey({ name, title, description, annotations, input: operation.input, output: operation.output, operation }),
    { method: route.method, path: `${apiBase}${route.path}`, params: route.params ?? {} },
  );
}

/**
 * A TypeBox schema as plain JSON Schema for tools/list. `$id`s are dropped: the same shape (Asset)
 * sits inside several tools' schemas, and validators that register ids refuse a second one.
 */
function jsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === '$id' ? undefined : publishedNode(value))));
}

/**
 * A tool's outputSchema admits its result and the `{ error, code }` of a refusal, since a refusal
 * carries that as structuredContent too, and some clients validate it even when isError is set.
 */
function outputSchema(output: TSchema): Record<string, unknown> {
  return {
    type: 'object',
    description: 'The result; when isError is true, { error, code } as on the REST API.',
    anyOf: [jsonSchema(output), jsonSchema(ErrorBodySchema)],
  };
}

/** A tool as tools/list shows it. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
}

/** The tools/list entry of a tool, on any surface. */
export function toolDefinition(tool: Pick<Tool, 'name' | 'title' | 'description' | 'annotations' | 'input' | 'output'>): ToolDefinition {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.input),
    outputSchema: outputSchema(tool.output),
    annotations: tool.annotations,
  };
}
