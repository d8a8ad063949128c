/**
 * The error log of `marketkit serve`: what the marketplace's onError hears, written so that no
 * client can fill the disk or read the server's layout from it (docs/security.md, "Input, URLs and
 * logs"). One short line per error; a system error (an fs call failing: ENAMETOOLONG, EACCES, ...)
 * is shown as its code and call, never with its path or stack; another error's stack is shown the
 * first time its signature is seen, with the data directory hidden. Lines are limited by token
 * buckets per client address and per error signature; what they hold back is counted and reported
 * as one line, "N similar messages suppressed".
 */

export interface ErrorLogOptions {
  /** Where lines go (console.error). */
  write(line: string): void;
  /** Milliseconds now (Date.now). */
  now?: () => number;
  /** Absolute directories never to print (the data directory, the blobs root): shown as `<data>`. */
  hidePaths?: readonly string[];
  /** Lines per client address: a burst, then so many a minute. Default 5, then 6 a minute. */
  perClient?: Bucket;
  /** Lines per error signature (kind of error and route): default 5, then 2 a minute. */
  perSignature?: Bucket;
  /** `json`: each report is one JSON object (time, level, msg, request_id, trace_id, method, path, client_address, error, cause, stack); `text` by default. */
  format?: 'text' | 'json';
}

export interface Bucket {
  burst: number;
  perMinute: number;
}

export interface ErrorRequest {
  method: string;
  path: string;
  requestId: string;
  clientAddress?: string;
  /** The request's trace id (its span's, else its traceparent's). */
  traceId?: string;
}

/** Longest path shown; the rest is counted. */
const maxPathChars = 120;
/** Longest message shown. */
const maxMessageChars = 300;
const maxStackFrames = 8;
/** Bucket maps past this size start over (a flood of new addresses must not grow them without bound). */
const maxKeys = 10_000;

interface Level {
  tokens: number;
  at: number;
}

function buckets(bucket: Bucket, now: () => number) {
  let levels = new Map<string, Level>();
  return (key: string): boolean => {
    const t = now();
    if (levels.size >= maxKeys && !levels.has(key)) levels = new Map();
    const level = levels.get(key) ?? { tokens: bucket.burst, at: t };
    level.tokens = Math.min(bucket.burst, level.tokens + ((t - level.at) * bucket.perMinute) / 60_000);
    level.at = t;
    levels.set(key, level);
    if (level.tokens < 1) return false;
    level.tokens -= 1;
    return true;
  };
}

/** Printable text only: a client's bytes cannot start a new line or move the cursor. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function shortPath(path: string): string {
  const shown = path.length > maxPathChars ? `${path.slice(0, maxPathChars)}…(+${path.length - maxPathChars} characters)` : path;
  return printable(shown);
}

interface SystemError extends Error {
  code: string;
  syscall: string;
}

/** An error of a system call (node's fs and net errors): its message and stack carry paths. */
function isSystemError(error: unknown): error is SystemError {
  return error instanceof Error && typeof (error as SystemError).code === 'string' && typeof (error as SystemError).syscall === 'string';
}

/** What kind of error on which route: the first three segments of the path, never the rest. */
function signatureOf(error: unknown, request: ErrorRequest): string {
  const kind = isSystemError(error) ? `${error.code} in ${error.syscall}` : error instanceof Error ? error.name : typeof error;
  const route = request.path.split('/').slice(0, 4).join('/').slice(0, 60);
  return printable(`${kind} on ${request.method.slice(0, 16)} ${route}`);
}

export function createErrorLog(options: ErrorLogOptions) {
  const now = options.now ?? Date.now;
  const hide = [...(options.hidePaths ?? [])].filter((p) => p.length > 1).sort((a, b) => b.length - a.length);
  const takeClient = buckets(options.perClient ?? { burst: 5, perMinute: 6 }, now);
  const takeSignature = buckets(options.perSignature ?? { burst: 5, perMinute: 2 }, now);
  const suppressed = new Map<string, number>();
  const stackShown = new Set<string>();

  const hidden = (text: string) => hide.reduce((out, path) => out.split(path).join('<data>'), text);

  function describe(error: unknown): string {
    if (isSystemError(error)) return `${error.code} in ${error.syscall} (a system error; its path is not shown)`;
    if (error instanceof Error) {
      const message = hidden(error.message);
      return printable(`${error.name}: ${message.length > maxMessageChars ? `${message.slice(0, maxMessageChars)}…` : message}`);
    }
    return printable(hidden(String(error)).slice(0, maxMessageChars));
  }

  const json = options.format === 'json';
  const line = (level: string, msg: string, fields: Record<string, unknown>) => options.write(JSON.stringify({ time: new Date(now()).toISOString(), level, msg, ...fields }));
  /** The error's cause, described the same way, when it has one (an unreachable store's driver error). */
  const causeOf = (error: unknown): string | null => (error instanceof Error && error.cause !== undefined ? describe(error.cause) : null);

  function summary(signature: string): void {
    const count = suppressed.get(signature);
    if (!count) return;
    suppressed.delete(signature);
    const text = `${count} similar message${count === 1 ? '' : 's'} suppressed (${signature})`;
    if (json) line('warn', text, { suppressed: count });
    else options.write(`marketkit: ${text}`);
  }

  return {
    onError(error: unknown, request: ErrorRequest): void {
      const signature = signatureOf(error, request);
      const client = request.clientAddress ?? 'unknown';
      // Both buckets are asked, so a flood from one client does not spend everyone's signature budget first.
      const clientAllows = takeClient(client);
      if (!clientAllows || !takeSignature(signature)) {
        if (suppressed.size >= maxKeys && !suppressed.has(signature)) flush();
        suppressed.set(signature, (suppressed.get(signature) ?? 0) + 1);
        return;
      }
      summary(signature);
      const cause = causeOf(error);
      // A bug's stack helps whoever fixes it, once per signature; a system error's says nothing more and names paths.
      let frames: string[] = [];
      if (!isSystemError(error) && error instanceof Error && error.stack && !stackShown.has(signature)) {
        if (stackShown.size < maxKeys) stackShown.add(signature);
        frames = error.stack.split('\n').filter((line) => /^\s+at /.test(line)).slice(0, maxStackFrames).map((frame) => printable(hidden(frame.trim())));
      }
      if (json) {
        line('error', 'request failed', {
          request_id: request.requestId.slice(0, 128),
          ...(request.traceId ? { trace_id: request.traceId } : {}),
          method: request.method.slice(0, 16),
          path: shortPath(request.path),
          ...(request.clientAddress ? { client_address: request.clientAddress.slice(0, 64) } : {}),
          error: describe(error),
          ...(cause ? { cause } : {}),
          ...(frames.length ? { stack: frames } : {}),
        });
        return;
      }
      const from = `${request.traceId ? `, trace ${request.traceId}` : ''}${request.clientAddress ? `, client ${printable(request.clientAddress.slice(0, 64))}` : ''}`;
      options.write(`marketkit: ${printable(request.method.slice(0, 16))} ${shortPath(request.path)} failed (request ${printable(request.requestId.slice(0, 128))}${from}): ${describe(error)}${cause ? ` (cause: ${cause})` : ''}`);
      for (const frame of frames) options.write(`  ${frame}`);
    },
    /** Reports every count held back so far (serve calls it every minute and when it stops). */
    flush,
  };

  function flush(): void {
    for (const signature of [...suppressed.keys()]) summary(signature);
  }
}
