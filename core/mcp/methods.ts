/**
 * The MCP methods, one table, and the dispatch of one JSON-RPC request to them. The dispatch is
 * shared by every surface that speaks MCP: the hosted endpoint (`createMcpMethods`, over HTTP,
 * its tools run in process) and the local process over stdio (`marketkit mcp`, its tools call
 * the REST API), which differ only in their tools and how a tool runs (`McpSurface`).
 * On the hosted endpoint only tools/call needs a token, and it authenticates itself on every
 * call, also inside a batch: a batch never carries a call past authentication.
 */
import { RawJson } from '../pipeline/raw-json.js';
import type { OperationResult } from '../pipeline/run-operation.js';
import { bearerCredential, identifyCaller, refuseSuspended } from '../auth/authenticate.js';
import type { UploadSigner } from '../operations/blob-urls.js';
import type { CoreRequest } from '../pipeline/request.js';
import { clientKey, takeLimit, takeRate } from '../pipeline/rate-limit.js';
import { isApiError } from '../errors.js';
import type { OperationContext, Ports, Settings } from '../operations/context.js';
import { isObject, JsonRpcError, type JsonRpcRequest } from './jsonrpc.js';
import type { HeaderSource } from './request-headers.js';
import { admitRequest, metaKeys, negotiateLegacyVersion, supportedVersions, type Era } from './protocol.js';
import type { ToolDefinition } from '../pipeline/tool.js';
import { toolDefinitions, toolsByName } from './tools.js';
import { countedToolCalls } from '../metrics/counted-ports.js';

export interface McpMethodsOptions {
  ports: Ports;
  settings: Settings;
  signer: UploadSigner;
}

/** What a method knows about the request it answers. */
export interface CallContext {
  request: CoreRequest;
  siteUrl: string;
  /** Response headers the method adds (RateLimit-*). */
  headers: Record<string, string>;
}

const instructions = [
  'MarketKit marketplace: create and manage your listings (assets) and send them to review.',
  'Upload order: create_asset (a draft; its id is the asset_id of every later step) -> get_asset_upload_url ->',
  'HTTP PUT of the file bytes to signed_url (outside MCP, no Authorization header) -> confirm_asset_file with storage_path',
  'and the byte size -> for each gallery image: get_image_upload_url -> HTTP PUT -> confirm_image with public_url ->',
  'submit_asset, which makes the listing pending until a moderator reviews it.',
  'A refusal is a tool result with isError and { error, code }: the error says what to change, the code is stable',
  '(INVALID_INPUT names the field; NOT_A_SELLER, INVALID_STATUS, NO_FILE, PAYOUTS_REQUIRED, ...).',
].join(' ');

const capabilities = { tools: { listChanged: false } };

/** How long a modern client may cache tools/list and server/discover: they change only with a new release. */
const cacheHint = { ttlMs: 300_000, cacheScope: 'public' } as const;

export interface ServerInfo {
  name: string;
  title: string;
  version: string;
}

/** What differs between the surfaces that speak MCP; the methods and their checks are the same. */
export interface McpSurface<C> {
  serverInfo: ServerInfo;
  instructions: string;
  tools: readonly ToolDefinition[];
  /**
   * Runs a tool of `tools` with arguments that are an object and resolves with its tool result
   * (`toolResult`, or `toolRefusal` for a domain refusal). `params` is the whole tools/call params:
   * its `_meta` may carry a progressToken.
   */
  callTool(name: string, args: Record<string, unknown>, params: Record<string, unknown>, context: C): Promise<object>;
  /** The request's headers (the 2026-07-28 mirrored ones); absent on a surface without headers (stdio). */
  headers?(context: C): HeaderSource;
  /**
   * Runs once a request has passed the protocol's checks, before its method: where the hosted
   * endpoint counts the calls it serves without a token, so that a request refused for its headers
   * costs nothing and is refused the same whatever the caller's budget (the revision's order).
   */
  admitted?(request: JsonRpcRequest, context: C): Promise<void>;
}

/** A tool's success as MCP carries it: the JSON as text, and as structuredContent. */
export function toolResult(result: unknown) {
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
}

/**
 * toolResult for an operation's result: its JSON and its content list, made once (and kept with a
 * cached result), go into the answer as text without being made again (core/pipeline/raw-json.ts).
 */
function operationToolResult(result: OperationResult) {
  return { content: new RawJson(result.contentJson), structuredContent: new RawJson(result.json) };
}

/** A domain refusal as the tool result an assistant can read and act on: `{ error, code }` as on REST. */
export function toolRefusal(body: { error: string; code: string; details?: unknown }) {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true };
}

export function createMcpDispatch<C>(surface: McpSurface<C>) {
  const { serverInfo } = surface;
  const toolNames = new Set(surface.tools.map((tool) => tool.name));

  function invalidParams(message: string): JsonRpcError {
    return new JsonRpcError('invalidParams', message);
  }

  // Not async: it hands on the tool's own promise (an async function returning one costs two more turns).
  function callTool(params: Record<string, unknown>, context: C): Promise<object> {
    const { name } = params;
    if (typeof name !== 'string') throw invalidParams('Invalid params: params.name must be the name of a tool.');
    if (!toolNames.has(name)) throw invalidParams(`Unknown tool: ${name.slice(0, 100)}. tools/list names the tools.`);
    const args = params.arguments ?? {};
    if (!isObject(args)) throw invalidParams('Invalid params: params.arguments must be an object.');
    return surface.callTool(name, args, params, context);
  }

  /** A method and what it answers; `era`, where it is served in only one (2026-07-28 removed initialize and ping). */
  interface Method {
    answer: (params: Record<string, unknown>, context: C) => Promise<object> | object;
    cacheable?: boolean;
    era?: Era;
  }
  const methods = new Map<string, Method>([
    [
      'initialize',
      {
        answer: (params) => {
          if (typeof params.protocolVersion !== 'string') throw invalidParams('Invalid params: params.protocolVersion must be a string.');
          return { protocolVersion: negotiateLegacyVersion(params.protocolVersion), capabilities, serverInfo, instructions: surface.instructions };
        },
        era: 'legacy',
      },
    ],
    [
      'server/discover',
      { answer: () => ({ supportedVersions, capabilities, serverInfo, instructions: surface.instructions }), cacheable: true },
    ],
    ['ping', { answer: () => ({}), era: 'legacy' }],
    [
      'tools/list',
      {
        answer: (params) => {
          // One page holds every tool, so no cursor was ever issued.
          if (params.cursor !== undefined && params.cursor !== null) throw invalidParams('Invalid params: there is no such cursor.');
          return { tools: surface.tools };
        },
        cacheable: true,
      },
    ],
    ['tools/call', { answer: callTool }],
  ]);

  /**
   * Answers one request: what it declares first (its version -32022, its `_meta` -32602, its
   * mirrored headers -32020: core/mcp/protocol.ts), then the surface's admission (rate limits),
   * its method (-32601), and the method itself.
   */
  return async function dispatch(request: JsonRpcRequest, context: C): Promise<object> {
    const era = admitRequest(request, surface.headers?.(context));
    if (surface.admitted) await surface.admitted(request, context);
    const method = methods.get(request.method);
    if (!method || (method.era !== undefined && method.era !== era)) {
      // The 2026-07-28 transport makes an unknown method a 404; earlier clients expect a plain JSON-RPC error.
      throw new JsonRpcError(era === 'modern' ? 'unknownMethod' : 'methodNotFound', `Method not found: ${request.method.slice(0, 100)}`);
    }
    const result = await method.answer(request.params, context);
    if (era === 'legacy') return result;
    // Modern results say they are complete and who answered, since no handshake did.
    return { ...result, ...(method.cacheable ? cacheHint : {}), resultType: 'complete', _meta: { [metaKeys.serverInfo]: serverInfo } };
  };
}

/** The hosted endpoint's methods: the hosted tools, run in process for the caller the request's token names. */
export function createMcpMethods(options: McpMethodsOptions) {
  const { ports, settings, signer } = options;
  const serverInfo = { name: 'marketkit', title: 'MarketKit marketplace', version: settings.version };

  async function callHostedTool(name: string, args: Record<string, unknown>, _params: Record<string, unknown>, context: CallContext) {
    const tool = toolsByName.get(name)!;
    let stamp = ports.reads.observe();
    if (typeof stamp !== 'number') stamp = await stamp;
    let caller;
    try {
      caller = await identifyCaller(ports, context.request, stamp);
    } catch (error) {
      // The contract's 401 for tools/call is an HTTP answer, so that clients ask for credentials; so
      // is the 429 of an address past its failed-authentication budget, which stands in for it.
      if (isApiError(error) && (error.code === 'UNAUTHORIZED' || error.code === 'RATE_LIMITED')) throw JsonRpcError.fromApiError(error);
      if (isApiError(error)) return toolRefusal(error.toBody());
      throw error;
    }
    try {
      Object.assign(context.headers, await takeRate(ports, caller, tool.operation?.requestClass ?? 'read'));
      // After the count, so that a suspended account's refusal carries RateLimit-* like any answer.
      refuseSuspended(caller);
      const ctx: OperationContext = { caller, ports, settings, signer, siteUrl: context.siteUrl, stamp };
      return operationToolResult(await tool.run(args, ctx));
    } catch (error) {
      if (!isApiError(error)) throw error;
      Object.assign(context.headers, error.headers);
      return toolRefusal(error.toBody());
    }
  }

  return createMcpDispatch<CallContext>({
    serverInfo,
    instructions,
    tools: toolDefinitions,
    callTool: countedToolCalls(ports.metrics, callHostedTool),
    headers: (context) => context.request,
    // A tool call with a bearer is counted by authentication (the caller's budget, or the
    // address's failures); every other call is served unauthenticated and counted per address.
    async admitted(request, context) {
      if (request.method === 'tools/call' && bearerCredential(context.request.header('authorization')) !== null) return;
      const limit = await takeLimit(ports, clientKey(context.request), 'mcpUnauthenticated', 'Too many unauthenticated MCP calls from this address');
      Object.assign(context.headers, limit);
    },
  });
}
