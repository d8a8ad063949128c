/**
 * An answer the core makes in the same turn of the event loop as its request was read (nothing to
 * wait for: the memory store, SQLite, the read cache) is written at the end of that turn, once the
 * turn has read every connection that had something to say (node's check phase, after its poll
 * phase), together with the other answers of the turn. An answer made in a later turn, after a
 * wait on I/O (PostgreSQL, a body still arriving), is written at once: the answers one database
 * reply completes are made together anyway, and holding them would only delay the clients' next
 * requests.
 *
 * Written as each is made, every answer to a client on the same host (a balancer, a proxy, a load
 * generator) is one socket write that wakes a peer which had gone idle in the few tens of
 * microseconds since the previous answer; on a virtual machine that wake-up is much of the write's
 * cost. Written in a burst, the first write wakes the peer and the rest find it awake
 * (docs/performance.md, "Answers written at the end of the turn"). An answer waits at most for the
 * rest of its turn's requests to be read and handled; alone in its turn, for one hop of the loop.
 */
export class Turn {
  readonly waiting: (() => void)[] = [];
}

/** The turn now running, from the first request read in it until its end. */
let current: Turn | null = null;

/** The turn of the event loop now running: call when a request is read. */
export function currentTurn(): Turn {
  if (current === null) {
    current = new Turn();
    setImmediate(endTurn, current);
  }
  return current;
}

function endTurn(turn: Turn): void {
  if (current === turn) current = null;
  for (const resolve of turn.waiting) resolve();
}

/** Null when the answer goes at once (the turn its request was read in is over); else a promise resolved at the end of that turn. */
export function endOfTurn(read: Turn): Promise<void> | null {
  if (read !== current) return null;
  return new Promise((resolve) => read.waiting.push(resolve));
}
