/**
 * How `marketkit serve` writes its log on stderr (docs/operations.md, "Logs"): `--log-format text`
 * (the default: short lines for a person at a terminal) or `json` (one object a line, the shape
 * log pipelines read: time, level, msg and fields), and `--log-level`: `warn` by default (errors
 * only, as before), `info` adds one line per request (the access log). No line ever holds a raw
 * path, query, header or body of a request: the route template, the request id, the client address.
 */
import * as v from 'valibot';
import type { AnsweredRequest } from '../core/pipeline/frame.js';

export type LogFormat = 'text' | 'json';
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
const severity: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export const logFlags = {
  options: {
    'log-format': { type: 'string' },
    'log-level': { type: 'string' },
  } as const,
  help: [
    ['--log-format <text|json>', 'text (default): short lines; json: one JSON object a line (time, level, msg, request_id, trace_id, method, route, status, duration_ms, client_address) for log pipelines (env MARKETKIT_LOG_FORMAT).'],
    ['--log-level <level>', 'error, warn (default: errors only), info (adds one line per request) or debug (env MARKETKIT_LOG_LEVEL).'],
  ] as [string, string][],
  entries: {
    'log-format': v.optional(v.picklist(['text', 'json'] as const, 'log-format must be text or json'), 'text'),
    'log-level': v.optional(v.picklist(['error', 'warn', 'info', 'debug'] as const, 'log-level must be error, warn, info or debug'), 'warn'),
  },
  defaults(env: NodeJS.ProcessEnv): Record<string, string> {
    return Object.fromEntries(Object.entries({ 'log-format': env.MARKETKIT_LOG_FORMAT, 'log-level': env.MARKETKIT_LOG_LEVEL }).filter((entry): entry is [string, string] => !!entry[1]));
  },
};

export interface ServeLog {
  format: LogFormat;
  enabled(level: LogLevel): boolean;
  /** One line: `msg` with `fields` (JSON: merged into the object; text: `msg` alone, the caller has written it whole). */
  write(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
  /** The access log's line for a request (written at info). */
  answered(entry: AnsweredRequest): void;
}

export function createServeLog({ format, level, out, now = Date.now }: { format: LogFormat; level: LogLevel; out: (line: string) => void; now?: () => number }): ServeLog {
  const enabled = (wanted: LogLevel) => severity[wanted] <= severity[level];
  const write = (at: LogLevel, msg: string, fields: Record<string, unknown> = {}) => {
    if (!enabled(at)) return;
    out(format === 'json' ? JSON.stringify({ time: new Date(now()).toISOString(), level: at, msg, ...fields }) : msg);
  };
  return {
    format,
    enabled,
    write,
    answered(entry) {
      if (!enabled('info')) return;
      const duration = Math.round(entry.durationMs * 1000) / 1000;
      if (format === 'json') {
        write('info', 'request', {
          request_id: entry.requestId,
          ...(entry.traceId ? { trace_id: entry.traceId } : {}),
          method: entry.method,
          route: entry.route,
          surface: entry.surface,
          status: entry.status,
          duration_ms: duration,
          ...(entry.clientAddress ? { client_address: entry.clientAddress } : {}),
        });
        return;
      }
      const trace = entry.traceId ? `, trace ${entry.traceId}` : '';
      const client = entry.clientAddress ? `, client ${entry.clientAddress}` : '';
      write('info', `marketkit: ${entry.method.slice(0, 16)} ${entry.route || '(no route)'} ${entry.status} ${duration} ms (request ${entry.requestId.slice(0, 128)}${trace}${client})`);
    },
  };
}
