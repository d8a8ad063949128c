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
 * Everything else (properties, `in` checks) reads through to the port itself. A plain object made
 * once (not a Proxy, whose get trap would run on every property read of the hot path;
 * docs/performance.md, "No-op tracing against tracing off"),
 * holding every method found up the port's prototype chain, bound to the port.
 */
export function tracedPort<P extends object>(port: P, name: TracedPortName, tracing: TracingPort): P {
  const wrapper: Record<PropertyKey, unknown> = {};
  for (let proto: object | null = port; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const key of Reflect.ownKeys(proto)) {
      if (key in wrapper || key === 'constructor') continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, key)!;
      // Read through the port itself: it may be a Proxy answering some methods from elsewhere (core/storage-capabilities.ts).
      const value: unknown = 'value' in descriptor ? Reflect.get(port, key) : undefined;
      if (typeof value === 'function') {
        const method = value as (...args: unknown[]) => unknown;
        wrapper[key] = typeof key === 'string' && !untraced.has(key) ? tracedMethod(port, method, name, key, tracing) : method.bind(port);
      } else {
        // A property (or a getter): read through, as it is now.
        Object.defineProperty(wrapper, key, { get: () => (port as Record<PropertyKey, unknown>)[key], enumerable: descriptor.enumerable ?? false });
      }
    }
  }
  return wrapper as P;
}

function tracedMethod(target: object, method: (...args: unknown[]) => unknown, port: TracedPortName, key: string, tracing: TracingPort) {
  const spanName = `${port} ${key}`;
  const attributes: SpanAttributes = { 'marketkit.port': port, 'marketkit.operation': key };
  return function traced(...args: unknown[]): unknown {
    // No SDK registered: straight through, without asking for the active context.
    if (tracing.live?.() === false) return method.apply(target, args);
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
