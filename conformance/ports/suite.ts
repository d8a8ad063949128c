/**
 * A test runner's `test` function, as node:test, Vitest, Jest, Bun and Deno's node:test all
 * have it: a name and an async body. The suites never import a runner themselves.
 */
export type TestFunction = (name: string, body: () => Promise<void>) => unknown;

/** Options every port suite takes. */
export interface SuiteOptions<Port, Group extends string> {
  test: TestFunction;
  /** A new, empty store for each test. */
  create: () => Port | Promise<Port>;
  /** Called after each test with the store `create` made: close it, remove its files. */
  dispose?: (port: Port) => void | Promise<void>;
  /**
   * Groups to leave out, each with the reason, for an adapter that cannot meet them yet
   * (`{ atomicity: 'single-writer store; callers serialize' }`). A reason is required.
   */
  skip?: Partial<Record<Group, string>>;
  /** Put before every test name, to tell several adapters apart in one run. Default: none. */
  prefix?: string;
}

/** Registers each group's tests with the caller's runner, each on a fresh store. */
export function registerGroups<Port, Group extends string>(
  suite: string,
  options: SuiteOptions<Port, Group>,
  groups: Record<Group, Record<string, (port: Port) => Promise<void>>>,
): void {
  for (const [group, reason] of Object.entries(options.skip ?? {}) as [Group, string | undefined][]) {
    if (!(group in groups)) throw new Error(`marketkit ${suite}: no group "${group}" to skip; the groups are ${Object.keys(groups).join(', ')}`);
    if (typeof reason !== 'string' || reason.trim() === '') throw new Error(`marketkit ${suite}: skipping "${group}" needs a reason`);
  }
  for (const [group, tests] of Object.entries(groups) as [Group, Record<string, (port: Port) => Promise<void>>][]) {
    if (options.skip?.[group]) continue;
    for (const [name, run] of Object.entries(tests)) {
      options.test(`${options.prefix ?? ''}${suite} ${group}: ${name}`, async () => {
        const port = await options.create();
        try {
          await run(port);
        } finally {
          await options.dispose?.(port);
        }
      });
    }
  }
}

/** Resolves all, then counts how many results satisfy `is`. */
export async function countOf<T>(pending: Promise<T>[], is: (result: T) => boolean): Promise<{ results: T[]; count: number }> {
  const results = await Promise.all(pending);
  return { results, count: results.filter(is).length };
}

/**
 * Runs `body` with `pick`, which gives each call alternately the port and its peer (another
 * instance on the same store, when the adapter can open one: `openPeer`), then closes the peer.
 */
export async function withPeer<P, S extends P>(
  port: S,
  openPeer: ((port: S) => Promise<P & { close?: () => unknown }>) | undefined,
  body: (pick: (i: number) => P) => Promise<void>,
): Promise<void> {
  const peer = await openPeer?.(port);
  try {
    await body((i) => (peer && i % 2 === 1 ? peer : port));
  } finally {
    await peer?.close?.();
  }
}
