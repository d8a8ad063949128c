/**
 * What the soak's load was told, kept so that the end can check it (docs/operations.md, "Soak and
 * chaos"): every listing whose creation was acknowledged (2xx), the title its last acknowledged
 * update set, every confirmed upload's digest, and what was wrong on the way.
 */

export interface ListingEntry {
  /** The title the last acknowledged write set. */
  title: string;
  /** Titles of updates whose outcome is unknown (no answer, or a 5xx) since that write. */
  unknown: string[];
  /** An update (or an upload) is running on it: one at a time, so that the last acknowledged is what must be stored. */
  busy: boolean;
}

export interface ConfirmedUpload {
  listingId: string;
  storagePath: string;
  /** The SHA-256 of the bytes the client sent. */
  sha256: string;
  /** The SHA-256 confirm-file answered (what the server recorded). */
  recorded: string | null;
}

export interface Ledger {
  listings: Map<string, ListingEntry>;
  /** The keys of `listings`, for picking one at random. */
  ids: string[];
  /** Idempotency keys sent twice whose answers named two listings, or whose retry was refused. */
  idempotencyViolations: string[];
  /** Reads (REST or MCP) that did not find a listing whose creation had been acknowledged before they were sent. */
  staleReads: string[];
  /** Answers of 2xx that said something else than asked (another listing, a JSON-RPC error, a tool refusal). */
  wrongAnswers: string[];
  uploads: ConfirmedUpload[];
  /** Uploads given up (listed for the report: a refusal that outlasted the chaos). */
  uploadFailures: string[];
}

export const newLedger = (): Ledger => ({ listings: new Map(), ids: [], idempotencyViolations: [], staleReads: [], wrongAnswers: [], uploads: [], uploadFailures: [] });

/** A listing's creation was acknowledged with `title` (once: a retry's answer naming it again changes nothing since). */
export function acknowledged(ledger: Ledger, id: string, title: string, busy = false): void {
  if (ledger.listings.has(id)) return;
  ledger.ids.push(id);
  ledger.listings.set(id, { title, unknown: [], busy });
}

let serial = 0;
/** A name used once in this run (and, with the time in it, across runs on one database). */
export const unique = () => `${Date.now().toString(36)}-${(serial++).toString(36)}`;
export const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
