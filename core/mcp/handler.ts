/**
 * The HTTP side of the hosted MCP endpoint: POST /api/mcp with JSON in and JSON out (no SSE, no
 * sessions), the DNS-rebinding checks, and the OAuth discovery paths that clients probe, which
 * answer a JSON 401 so that the client falls back to the Authorization header.
 */
import { bearerChallenge } from '../auth/authenticate.js';
import { jsonResponse, jsonTextResponse, type CoreResponse } from '../pipeline/request.js';
import { ApiError, isApiError } from '../errors.js';
import { rememberAnswers } from '../memo.js';
import { stringifyWithRaw } from '../pipeline/raw-json.js';
import { errorResponse, type Exchange, type Surface } from '../pipeline/frame.js';
import { answerBody, errorAnswer, idOf, JsonRpcError, unexpectedError, type JsonRpcId, type JsonRpcRequest, type Responder } from './jsonrpc.js';
import { createMcpMethods, type McpMethodsOptions } from './methods.js';
import { isSupportedVersion, unsupportedVersion } from './protocol.js';
import { createRebindingGuard, type RebindingOptions } from './rebinding.js';
import { mcpBodyTrace } from './trace-meta.js';

export const mcpPath = '/api/mcp';

/** What the operations need (ports, settings, signer), the DNS-rebinding options, and where probes are claimed. */
export interface McpSurfaceOptions extends McpMethodsOptions, RebindingOptions {
  /** Whether `owns` claims the root-level probe paths for middleware (see `probePathScope`). */
  claimRootProbePaths: boolean;
}

const discoveryNames = ['oauth-protected-resource', 'oauth-authorization-server', 'openid-configuration'];
const rootProbePaths = new Set(['/register', '/authorize', '/token']);

/**
 * Where a path is an OAuth discovery probe: under the endpoint (always the marketplace's), at the
 * site root (`/.well-known/<name>[/api/mcp]`, `/register`, `/authorize`, `/token`: an embedding
 * app may serve its own there), or not a probe.
 */
function probePathScope(path: string): 'endpoint' | 'root' | null {
  const wellKnown = (prefix: string) => discoveryNames.some((name) => path === `${prefix}${name}` || path.startsWith(`${prefix}${name}/`));
  if (wellKnown(`${mcpPath}/.well-known/`)) return 'endpoint';
  if (wellKnown('/.well-known/') || rootProbePaths.has(path)) return 'root';
  return null;
}

// What a browser page on an allowed origin may send and read, for a preflight and on every answer.
const corsAllowHeaders = 'authorization, content-type, accept, mcp-protocol-version, mcp-method, mcp-name, x-request-id';
const corsExposeHeaders = 'www-authenticate, x-request-id, ratelimit-limit, ratelimit-remaining, ratelimit-reset, retry-after';

/** Whether an Accept header admits a JSON answer: absent, or application/json, application/* or * / * with q above 0. */
function acceptsJson(accept: string | undefined): boolean {
  return !accept || acceptValueAdmitsJson(accept);
}

const acceptValueAdmitsJson = rememberAnswers((accept: string): boolean =>
  accept.split(',').some((range) => {
    const [type, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== 'application/json' && type !== 'application/*' && type !== '*/*') return false;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }),
);

/**
 * The hosted MCP endpoint as a surface of the frame (core/pipeline/frame.ts): POST /api/mcp, with
 * its failures as JSON-RPC errors, and the paths beside it (OAuth probes, anything else under
 * /api/mcp) answered in the error table's shape.
 */
export function mcpSurface(options: McpSurfaceOptions): Surface & { owns(path: string): boolean } {
  const dispatch = createMcpMethods(options);
  const checkRebinding = createRebindingGuard(options);
  return {
    /** The endpoint, anything under it, and every probe path. */
    serves: (path) => path === mcpPath || path.startsWith(`${mcpPath}/`) || probePathScope(path) !== null,
    /** What middleware claims: as `serves`, with the root-level probe paths only when told to. */
    owns: (path) => path === mcpPath || path.startsWith(`${mcpPath}/`) || (options.claimRootProbePaths && probePathScope(path) === 'root'),
    serve: (exchange) => serveMcp(dispatch, checkRebinding, exchange),
    /** The trace a JSON-RPC request names in its `_meta` (core/mcp/trace-meta.ts), for the frame's span. */
    async bodyTrace(exchange) {
      if (exchange.path !== mcpPath || exchange.request.method !== 'POST') return undefined;
      return mcpBodyTrace(await exchange.readJson(), exchange.request.header('mcp-protocol-version'));
    },
    /** At the endpoint every failure is a JSON-RPC error without an id; beside it, the error table's shape. */
    failure(error, exchange) {
      if (exchange.path !== mcpPath) return errorResponse(error, exchange);
      if (error instanceof JsonRpcError) return rpcFailure(error);
      if (isApiError(error)) return rpcFailure(JsonRpcError.fromApiError(error));
      exchange.report(error);
      return rpcFailure(unexpectedError(error));
    },
  };
}

type McpDispatch = ReturnType<typeof createMcpMethods>;

function rpcFailure(error: JsonRpcError, id: JsonRpcId | null = null): CoreResponse {
  const answer = errorAnswer(id, error);
  return jsonResponse(answer.status, answer.response, answer.headers);
}

async function readBody(exchange: Exchange): Promise<unknown> {
  let body: unknown;
  try {
    body = await exchange.readJson();
  } catch (error) {
    // Invalid JSON, invalid UTF-8 and nesting too deep to parse safely are all a body we cannot parse.
    if (isApiError(error) && error.code === 'INVALID_INPUT') throw new JsonRpcError('parseError', `Parse error: the ${error.message}.`);
    throw error;
  }
  if (body === undefined) throw new JsonRpcError('parseError', 'Parse error: the body is empty; send a JSON-RPC message.');
  return body;
}

/**
 * One HTTP request to the endpoint: the responder its JSON-RPC requests are answered by, and where
 * its bugs are reported. An object per request rather than closures (core/mcp/jsonrpc.ts, Responder).
 */
class EndpointCall implements Responder {
  constructor(
    readonly dispatch: McpDispatch,
    readonly exchange: Exchange,
  ) {}

  respond(rpc: JsonRpcRequest, headers: Record<string, string>): Promise<object> {
    const { request, siteUrl } = this.exchange;
    return this.dispatch(rpc, { request, siteUrl, headers });
  }

  reportBug(error: unknown): void {
    this.exchange.report(error);
  }
}

/** A request for a path the surface serves: the probes' 401, the rebinding checks and CORS, then the endpoint. */
async function serveMcp(dispatch: McpDispatch, checkRebinding: ReturnType<typeof createRebindingGuard>, exchange: Exchange): Promise<CoreResponse> {
  if (exchange.path !== mcpPath) {
    // OAuth probes get a JSON 401 in the REST error shape, anything else under /api/mcp a 404.
    throw probePathScope(exchange.path)
      ? new ApiError('UNAUTHORIZED', 'This server has no OAuth: send Authorization: Bearer <developer token>.', { headers: bearerChallenge })
      : new ApiError('NOT_FOUND', 'No such endpoint; the MCP endpoint is /api/mcp.');
  }
  const rebinding = checkRebinding(exchange.request);
  if (!rebinding.allowed) throw new ApiError('FORBIDDEN', rebinding.reason);
  if (rebinding.corsOrigin) {
    // On every answer to an allowed page, errors included.
    Object.assign(exchange.headers, { 'access-control-allow-origin': rebinding.corsOrigin, 'access-control-expose-headers': corsExposeHeaders, vary: 'origin' });
    if (exchange.request.method === 'OPTIONS') {
      return { status: 204, headers: { 'access-control-allow-methods': 'POST', 'access-control-allow-headers': corsAllowHeaders, 'access-control-max-age': '600' }, body: null };
    }
  }
  return serveEndpoint(dispatch, exchange);
}

/** POST /api/mcp: a JSON-RPC message or batch in, its answer out (no SSE, no sessions). */
async function serveEndpoint(dispatch: McpDispatch, exchange: Exchange): Promise<CoreResponse> {
  const { request } = exchange;
  if (request.method !== 'POST') {
    throw new ApiError('METHOD_NOT_ALLOWED', 'The MCP endpoint takes POST only: it opens no SSE stream and keeps no sessions.', {
      headers: { allow: 'POST' },
    });
  }
  if (!acceptsJson(request.header('accept'))) {
    throw new JsonRpcError('notAcceptable', 'Not Acceptable: this endpoint answers with application/json; list it in Accept.');
  }
  const body = await readBody(exchange);
  // The header speaks for the whole HTTP request, notifications included (contract: 400).
  const versionHeader = request.header('mcp-protocol-version');
  if (versionHeader !== undefined && !isSupportedVersion(versionHeader)) return rpcFailure(unsupportedVersion(versionHeader), idOf(body));
  const reply = await answerBody(body, new EndpointCall(dispatch, exchange));
  if (reply.body === null) return { status: reply.status, headers: { ...reply.headers, 'content-length': '0' }, body: null };
  return jsonTextResponse(reply.status, stringifyWithRaw(reply.body), reply.headers);
}
