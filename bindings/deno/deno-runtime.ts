/**
 * The few parts of Deno's global this binding uses, declared here so that the project type-checks
 * with Node's types only.
 */
export interface DenoNetAddr {
  transport: string;
  hostname: string;
  port: number;
}

export interface DenoServeHandlerInfo {
  remoteAddr: DenoNetAddr;
}

export type DenoServeHandler = (request: Request, info: DenoServeHandlerInfo) => Response | Promise<Response>;

export interface DenoServeOptions {
  port?: number;
  hostname?: string;
  signal?: AbortSignal;
  onListen?(addr: DenoNetAddr): void;
  onError?(error: unknown): Response | Promise<Response>;
}

export interface DenoHttpServer {
  readonly addr: DenoNetAddr;
  readonly finished: Promise<void>;
  shutdown(): Promise<void>;
}

export interface DenoGlobal {
  version: { deno: string };
  serve(options: DenoServeOptions, handler: DenoServeHandler): DenoHttpServer;
}

/** Deno's global, or a programmer error that names the binding to use instead. */
export function denoGlobal(): DenoGlobal {
  const deno = (globalThis as { Deno?: DenoGlobal }).Deno;
  if (!deno) throw new Error('marketkit/bindings/deno: this is not Deno. On Node use marketkit/bindings/node; on another fetch host, marketkit/bindings/fetch.');
  return deno;
}
