/**
 * Answers made during one turn of the event loop are written together, once the turn has read
 * every connection that had something to say (node's check phase, after its poll phase).
 *
 * Written as each is made, every answer to a client on the same host (a balancer, a proxy, a test
 * client) is one socket write that wakes a peer which had gone idle in the few tens of
 * microseconds since the previous answer; on a virtual machine that wake-up is most of the write's
 * cost. Written in a burst, the first write wakes the peer and the rest find it awake. Measured on
 * the MCP bench: 64 to 47 µs of server CPU per tools/call, p99 1.6 to 1.0 ms (docs/performance.md,
 * "Answers written at the end of the turn"). An answer waits at most for the rest of its turn's
 * requests to be read and handled; alone in its turn, one hop of the loop.
 */
let waiting: (() => void)[] = [];

/** Resolves once the current turn of the event loop has handled its I/O. */
export function endOfTurn(): Promise<void> {
  return new Promise((resolve) => {
    if (waiting.push(resolve) === 1) setImmediate(writeTurn);
  });
}

function writeTurn(): void {
  const turn = waiting;
  waiting = [];
  for (const resolve of turn) resolve();
}
