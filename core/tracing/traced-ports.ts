/**
 * Child spans for the storage, blob and rate-limiter calls, taken at the ports (wrapped once, in
 * createMarketplace) so that the code calling them stays as it is. A call makes a span only when
 * the active context holds one (a request's or a webhook delivery's): the worker's polls, sweeps
 * and scrapes make no root spans of their own. The parent is the active context, which the
 * application's context manager carries across awaits (NodeSDK registers AsyncLocalStorage's).
 */
import type { SpanAttributes, TracingPort } from '../ports/tracing.js';

/** Which port a traced call went to: the span's name is `${port} ${method}` (`storage getAsset`). */
export type TracedPortName = 'storage' | 'blobs' | 'rate_limiter';

/** Methods that are not calls to trace: capability flags and the ports a storage offers beside itself. */
const untraced = new Set(['constructor', 'then', 'uploadStates', 'close', 'webhookBacklog', 'poolStats']);

/**
 * The port with each of its methods traced: a span from the call until its promise settles (or
 * its return, when it answers synchronously), ended as an error when it throws or rejects.
 * Everything else (properties, `in` checks) reads through to the port itself.
 */
export function tracedPort<P extends object>(port: P, name: TracedPortName, tracing: TracingPort): P {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(port, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || typeof key !== 'string' || untraced.has(key)) return value;
      let traced = wrapped.get(key);
      if (!traced) wrapped.set(key, (traced = tracedMethod(target, value as (...args: unknown[]) => unknown, name, key, tracing)));
      return traced;
    },
  });
}

function tracedMethod(target: object, method: (...args: unknown[]) => unknown, port: TracedPortName, key: string, tracing: TracingPort) {
  const spanName = `${port} ${key}`;
  const attributes: SpanAttributes = { 'marketkit.port': port, 'marketkit.operation': key };
  return function traced(...args: unknown[]): unknown {
    const parent = tracing.active();
    if (!parent) return method.apply(target, args);
    const span = tracing.startSpan(spanName, { kind: 'internal', attributes, parent });
    let result: unknown;
    try {
      result = tracing.withContext(span.context, () => method.apply(target, args));
    } catch (error) {
      span.end({ error });
      throw error;
    }
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => {
          span.end();
          return value;
        },
        (error: unknown) => {
          span.end({ error });
          throw error;
        },
      );
    }
    span.end();
    return result;
  };
}
