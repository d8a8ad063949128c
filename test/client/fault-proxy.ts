/**
 * A real HTTP server in front of the test server that injects faults, for the client's retry
 * tests: no mock of fetch, the client speaks HTTP to it. Each request is logged; `decide` says
 * whether to forward it, to answer in its place, or to forward it and then answer with a fault
 * (the server acted, the client is told it failed).
 */
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = { status: number; headers?: Record<string, string>; body?: unknown };
/**
 * `forwardThenCut`: the request reaches the server, which acts and answers; the proxy sends the
 * client the status line, the headers and half the body, then destroys the socket (an answer lost
 * mid-way, as a connection that breaks does).
 */
export type Decision = 'forward' | { answer: Fault } | { forwardThenAnswer: Fault } | { forwardThenCut: true } | { cutRequestAfter: number };
/**
 * `cutRequestAfter`: the request's first bytes (its headers and that many bytes of its body) reach
 * the server, then both connections are destroyed: an upload cut off mid-way.
 */

export interface FaultProxy {
  url: string;
  /** Every request that reached the proxy, in order: `POST /api/v1/assets`. */
  log: string[];
  close(): Promise<void>;
}

function upstreamRequest(upstream: URL, req: IncomingMessage, preserveHost: boolean, onResponse?: (res: IncomingMessage) => void) {
  return httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: preserveHost ? req.headers : { ...req.headers, host: upstream.host } }, onResponse);
}

function cutRequest(upstream: URL, req: IncomingMessage, preserveHost: boolean, after: number): void {
  const out = upstreamRequest(upstream, req, preserveHost);
  out.on('error', () => {});
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    if (seen >= after) return;
    seen += chunk.length;
    out.write(chunk);
    if (seen >= after) {
      out.destroy();
      req.socket.destroy();
    }
  });
}

function forward(upstream: URL, req: IncomingMessage, preserveHost: boolean): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const out = upstreamRequest(upstream, req, preserveHost, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    out.on('error', reject);
    req.pipe(out);
  });
}

/**
 * With `preserveHost`, the upstream sees the proxy's Host, so the URLs it builds (signed upload
 * URLs) lead back through the proxy too.
 */
export async function startFaultProxy(
  upstreamUrl: string,
  decide: (method: string, path: string, index: number) => Decision,
  options: { preserveHost?: boolean } = {},
): Promise<FaultProxy> {
  const upstream = new URL(upstreamUrl);
  const log: string[] = [];
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0]!;
    const entry = `${req.method} ${path}`;
    const decision = decide(req.method!, path, log.filter((seen) => seen === entry).length);
    log.push(entry);
    const fail = (fault: Fault) => {
      const body = JSON.stringify(fault.body ?? { error: `injected ${fault.status}`, code: fault.status === 429 ? 'RATE_LIMITED' : 'INTERNAL_ERROR' });
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      res.end(body);
    };
    try {
      if (decision !== 'forward' && 'answer' in decision) {
        req.resume();
        return fail(decision.answer);
      }
      if (decision !== 'forward' && 'cutRequestAfter' in decision) return cutRequest(upstream, req, options.preserveHost ?? false, decision.cutRequestAfter);
      const answer = await forward(upstream, req, options.preserveHost ?? false);
      const headers = { ...answer.headers };
      delete headers['transfer-encoding'];
      if (decision !== 'forward' && 'forwardThenCut' in decision) {
        res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) });
        res.write(answer.body.subarray(0, Math.floor(answer.body.length / 2)), () => res.socket?.destroy());
        return;
      }
      if (decision !== 'forward') return fail(decision.forwardThenAnswer);
      res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) });
      res.end(answer.body);
    } catch (error) {
      res.writeHead(502).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
