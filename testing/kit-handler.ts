import type { ManualClock } from '../adapters/memory/index.js';
import { ApiError } from '../core/errors.js';
import type { Marketplace } from '../core/marketplace.js';
import { toolRefusal } from '../core/mcp/methods.js';
import { blobRoutePrefix } from '../core/operations/blob-urls.js';
import { readAllBytes as readAll } from '../core/pipeline/body.js';
import { jsonResponse, requestIdOf, type CoreRequest, type CoreResponse } from '../core/pipeline/request.js';
import { createFaults, faultError, mcpPath, type FaultKind } from './faults.js';
import { DroppedConnection, knownBody, withBody, type Connection } from './kit-request.js';
import { createRequestLog, LoggedCall } from './request-log.js';

const textDecoder = new TextDecoder();

function parsedJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(textDecoder.decode(bytes));
  } catch {
    // Not JSON: logged as a body without a value.
    return null;
  }
}

const isToolCall = (message: unknown): message is { method: 'tools/call'; id?: unknown; params?: { name?: unknown } } =>
  typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'tools/call';

/** The names of the tools a JSON-RPC message (or batch) calls. */
function toolsCalled(bytes: Uint8Array): string[] {
  const message = parsedJson(bytes);
  return (Array.isArray(message) ? message : [message]).filter(isToolCall).flatMap((m) => (typeof m.params?.name === 'string' ? [m.params.name] : []));
}

/** The id of a single tools/call request (not a batch, not a notification), else undefined. */
function singleToolCallId(bytes: Uint8Array): string | number | undefined {
  const message = parsedJson(bytes);
  return isToolCall(message) && (typeof message.id === 'string' || typeof message.id === 'number') ? message.id : undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A request's body as the log sees it: the bytes sent (not an upload's), and the body to pass on. */
interface ReadBody {
  sentBytes: Uint8Array | null;
  body: CoreRequest['body'];
  /** An upload's bytes counted as the marketplace reads them. */
  uploaded: { bytes: number };
}

/**
 * The body is read here so that the log can show it (parsed only if a test reads the log); an
 * upload's bytes are only counted.
 */
async function readForLog(request: CoreRequest, isUpload: boolean): Promise<ReadBody> {
  const read: ReadBody = { sentBytes: null, body: request.body, uploaded: { bytes: 0 } };
  const { body } = read;
  const known = (request as { [knownBody]?: Uint8Array })[knownBody];
  if (known && !isUpload) {
    // The kit's own fetch built this body from bytes it holds: nothing to read.
    read.sentBytes = known;
  } else if (body && !isUpload) {
    try {
      const bytes = await readAll(body);
      read.sentBytes = bytes;
      read.body = (async function* () {
        if (bytes.byteLength > 0) yield bytes;
      })();
    } catch (error) {
      read.body = (async function* () {
        throw error;
      })();
    }
  } else if (body && isUpload) {
    const source = body;
    read.body = (async function* () {
      for await (const chunk of source) {
        read.uploaded.bytes += chunk.byteLength;
        yield chunk;
      }
    })();
  }
  return read;
}

type Log = (status: number | null, raw: unknown, contentType?: string) => void;

/** The answer of an error, rate-limit or unavailable fault, logged. */
function faultAnswer(marketplace: Marketplace, request: CoreRequest, path: string, fault: Extract<FaultKind, { kind: 'error' | 'rateLimit' | 'unavailable' }>, sentBytes: Uint8Array | null, log: Log): CoreResponse {
  const { status, error } = faultError(fault);
  // Like every answer of the marketplace, it carries the request's id.
  const requestId = { 'x-request-id': requestIdOf(request, marketplace.ports.ids) };
  // On the MCP endpoint a refusal of one tool call is a tool result, as the marketplace renders it.
  const rpcId = fault.kind === 'error' && path === mcpPath && sentBytes ? singleToolCallId(sentBytes) : undefined;
  if (rpcId !== undefined) {
    const envelope = { jsonrpc: '2.0', id: rpcId, result: toolRefusal(error.toBody()) };
    log(200, envelope);
    return jsonResponse(200, envelope, requestId);
  }
  const response = jsonResponse(status, error.toBody(), { ...error.headers, ...requestId });
  log(status, error.toBody());
  return response;
}

/** The marketplace receives the first part of the body, then the stream breaks as a cut connection does. */
async function partialUpload(marketplace: Marketplace, request: CoreRequest, body: NonNullable<CoreRequest['body']>, fraction: number | undefined): Promise<void> {
  const all = await readAll(body);
  const cut = all.subarray(0, Math.floor(all.byteLength * (fraction ?? 0.5)));
  const broken = (async function* () {
    if (cut.byteLength > 0) yield cut;
    throw new ApiError('INVALID_INPUT', 'The request body ended before it was complete.');
  })();
  await marketplace.handle(withBody(request, broken));
}

/**
 * The marketplace's handler wrapped from outside, as the kit serves it: each request logged (its
 * body read so that the log can show it) and the faults that match it applied. The core knows
 * nothing of either.
 */
export function faultedHandler(marketplace: Marketplace, clock: ManualClock, faults: ReturnType<typeof createFaults>, requests: ReturnType<typeof createRequestLog>) {
  return async function faulted(request: CoreRequest, path: string, connection: Connection): Promise<CoreResponse> {
    const method = request.method.toUpperCase();
    const arrivedAt = clock.now();
    const isUpload = method === 'PUT' && path.startsWith(blobRoutePrefix);
    const authorization = request.header('authorization')?.slice(0, 12) ?? null;
    const { sentBytes, body, uploaded } = await readForLog(request, isUpload);
    // The tools a POST to the MCP endpoint calls, read from its body only when a rule asks.
    let called: readonly string[] | null = null;
    const tools = () => (called ??= path === mcpPath && sentBytes ? toolsCalled(sentBytes) : []);
    const decision = faults.decide(method, path, tools);
    const faultName = [decision.latencyMs > 0 ? 'latency' : null, decision.fault?.kind ?? null].filter(Boolean).join('+') || null;
    const log: Log = (status, raw, contentType) => {
      const sent = { bytes: sentBytes, contentType: request.header('content-type'), uploaded: isUpload ? uploaded.bytes : null };
      requests.add(new LoggedCall(method, request.target, path, authorization, status, faultName, arrivedAt, sent, { raw, contentType }));
    };
    const dropped = () => {
      log(null, null);
      connection.drop();
      return new DroppedConnection();
    };

    if (decision.latencyMs > 0) await sleep(decision.latencyMs);
    const fault = decision.fault;
    if (fault?.kind === 'drop' && fault.when !== 'after') throw dropped();
    if (fault?.kind === 'error' || fault?.kind === 'rateLimit' || fault?.kind === 'unavailable') return faultAnswer(marketplace, request, path, fault, sentBytes, log);
    if (fault?.kind === 'partialUpload' && body) {
      await partialUpload(marketplace, request, body, fault.fraction);
      throw dropped();
    }
    const response = await marketplace.handle(body === request.body ? request : withBody(request, body));
    if (fault?.kind === 'drop') throw dropped();
    const sent = response.body;
    log(response.status, typeof sent === 'string' || sent instanceof Uint8Array ? sent : sent ? { stream: true } : null, response.headers['content-type']);
    return response;
  };
}
