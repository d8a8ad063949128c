/**
 * The few parts of Bun's global this binding uses, declared here so that the project type-checks
 * with Node's types only (no bun-types package).
 */
export interface BunServer {
  readonly port: number;
  readonly hostname: string;
  /** The peer's address, or null when it is not known (a Unix socket). */
  requestIP(request: Request): { address: string; family: string; port: number } | null;
  /** Sets the idle timeout of the connection a request came on, in seconds (0: none), until set again. */
  timeout(request: Request, seconds: number): void;
  /** Stops listening; with `true`, closes the connections in flight as well. */
  stop(closeActiveConnections?: boolean): Promise<void>;
}

export interface BunServeOptions {
  port?: number;
  hostname?: string;
  /** Seconds a connection may stay silent before Bun closes it (at most 255). */
  idleTimeout?: number;
  /** Whether another process may listen on the same port too (SO_REUSEPORT). */
  reusePort?: boolean;
  /** Bun refuses larger bodies itself; 128 MB by default. */
  maxRequestBodySize?: number;
  development?: boolean;
  fetch(request: Request, server: BunServer): Response | Promise<Response>;
  error?(error: Error): Response | Promise<Response>;
}

export interface BunGlobal {
  version: string;
  serve(options: BunServeOptions): BunServer;
}

/** Bun's global, or a programmer error that names the binding to use instead. */
export function bunGlobal(): BunGlobal {
  const bun = (globalThis as { Bun?: BunGlobal }).Bun;
  if (!bun) throw new Error('marketkit/bindings/bun: this is not Bun. On Node use marketkit/bindings/node; on another fetch host, marketkit/bindings/fetch.');
  return bun;
}
