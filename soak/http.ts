/**
 * The soak's HTTP: one keep-alive agent to the balancer, every request bounded in time, every answer
 * recorded (when it was sent, what it was, its status or 0 for no answer, how long it took).
 */
import { Agent, request } from 'node:http';

export interface Sample {
  /** When it was sent, ms since the run began. */
  at: number;
  op: string;
  /** The HTTP status; 0 when no answer came (a refused or cut connection, a timeout). */
  status: number;
  ms: number;
  /** For a 5xx: the start of its body, to say whose answer it was (haproxy's own, or an instance's code); for no answer, why. */
  note?: string;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export interface SendOptions {
  body?: unknown;
  raw?: Uint8Array;
  headers?: Record<string, string>;
  record?: boolean;
  statusOf?: (answer: Answer) => number;
}

/** No answer came: the text says why (ECONNRESET, ECONNREFUSED, timed out, ...). */
const noAnswer = (error: Error & { code?: string }): Answer => ({ status: 0, headers: {}, text: `no answer: ${error.code ?? error.message}`, json: null });

export class SoakHttp {
  readonly samples: Sample[] = [];
  // An idle connection is closed after 4 s, before haproxy closes it (its keep-alive timeout is
  // `timeout http-request`, 10 s): a request written on a connection haproxy is closing at that
  // instant gets no answer, the client's race and not the service's (three at once, 10 s after a burst).
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 96, timeout: 4000 });

  constructor(
    readonly base: string,
    readonly token: string,
    private readonly startedAt: number,
  ) {}

  /**
   * One request; never throws (no answer is status 0). `record: false` keeps it out of the samples
   * (the final checks); `statusOf` is the status to record when the HTTP one does not say it all
   * (an MCP tool's INTERNAL_ERROR comes in a 200).
   */
  send(op: string, method: string, path: string, options: SendOptions = {}): Promise<Answer> {
    const sent = performance.now();
    const at = Date.now() - this.startedAt;
    const payload = options.raw ?? (options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body)));
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(payload ? { 'content-length': String(payload.byteLength) } : {}),
      ...options.headers,
    };
    return new Promise<Answer>((resolve) => {
      let finished = false;
      const done = (answer: Answer) => {
        if (finished) return;
        finished = true;
        if (options.record !== false) {
          const status = options.statusOf?.(answer) ?? answer.status;
          this.samples.push({ at, op, status, ms: performance.now() - sent, ...(status >= 500 || status === 0 ? { note: answer.text.slice(0, 160) } : {}) });
        }
        resolve(answer);
      };
      const req = request(`${this.base}${path}`, { method, headers, agent: this.agent, timeout: 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => done(noAnswer(error)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = null;
          try {
            json = text ? JSON.parse(text) : null;
          } catch {
            // Not JSON (haproxy's own 503 page): the status says enough.
          }
          done({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (error) => done(noAnswer(error)));
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
