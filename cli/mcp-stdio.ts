/**
 * The stdio transport of `marketkit mcp` (cli/mcp.ts): one JSON-RPC message per line in, one per
 * line out, lines answered concurrently (a long upload does not hold up a ping or a list), and
 * notifications/cancelled aborting the request it names, which then gets no answer.
 */
import { createInterface } from 'node:readline';
import { answerBody, errorAnswer, JsonRpcError, isObject } from '../core/mcp/jsonrpc.js';
import type { createMcpDispatch } from '../core/mcp/methods.js';

export interface McpIo {
  input: NodeJS.ReadableStream;
  /** One protocol message, written as one line. */
  write(line: string): void;
  /** One log line, on stderr. */
  log(line: string): void;
  cwd: string;
}

export interface StdioContext {
  write(message: object): void;
  /** Aborted when the client cancels the request (notifications/cancelled). */
  signal: AbortSignal;
}

type Dispatch = ReturnType<typeof createMcpDispatch<StdioContext>>;

/** The requests being answered, and those the client cancelled. */
interface StdioSession {
  io: McpIo;
  dispatch: Dispatch;
  inFlight: Map<string | number, AbortController>;
  aborted: Set<string | number>;
}

const write = (io: McpIo, message: object) => io.write(JSON.stringify(message));
const report = (io: McpIo, error: unknown) => io.log(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);

/** Answers every line of `io.input` until it ends, then waits for the answers still running. */
export async function serveStdio(io: McpIo, dispatch: Dispatch): Promise<void> {
  const session: StdioSession = { io, dispatch, inFlight: new Map(), aborted: new Set() };
  const pending = new Set<Promise<void>>();
  const lines = createInterface({ input: io.input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const answering = answerLine(session, line).catch((error: unknown) => report(io, error));
    pending.add(answering);
    void answering.finally(() => pending.delete(answering));
  }
  await Promise.all(pending);
}

async function answerLine(session: StdioSession, line: string): Promise<void> {
  const { io, dispatch, inFlight, aborted } = session;
  let body: unknown;
  try {
    body = JSON.parse(line);
  } catch {
    write(io, errorAnswer(null, new JsonRpcError('parseError', 'Parse error: each line must be one JSON-RPC message.')).response);
    return;
  }
  const cancelled = cancelledRequestOf(session, body);
  if (cancelled !== undefined) {
    inFlight.get(cancelled)?.abort();
    return;
  }
  const reply = await answerBody(body, {
    async respond(request) {
      const controller = new AbortController();
      inFlight.set(request.id, controller);
      try {
        return await dispatch(request, { write: (message) => write(io, message), signal: controller.signal });
      } finally {
        inFlight.delete(request.id);
      }
    },
    reportBug: (error) => report(io, error),
  });
  // A cancelled request gets no answer (MCP: the sender has stopped waiting for it).
  if (reply.body !== null && !(isObject(reply.body) && aborted.has(reply.body.id as string | number))) write(io, reply.body);
}

/** The requestId of a notifications/cancelled message, else undefined. */
function cancelledRequestOf({ io, inFlight, aborted }: StdioSession, body: unknown): string | number | undefined {
  if (!isObject(body) || body.method !== 'notifications/cancelled' || 'id' in body || !isObject(body.params)) return undefined;
  const { requestId } = body.params;
  if (typeof requestId !== 'string' && typeof requestId !== 'number') return undefined;
  if (inFlight.has(requestId)) {
    aborted.add(requestId);
    io.log(`request ${requestId} cancelled by the client.`);
  }
  return requestId;
}
