/** A SHA-256 taken in one go, whose state is never saved: a single PUT's (docs/uploads.md, "The hash state"). */
export interface OneShotSha256 {
  update(bytes: Uint8Array): void;
  /** The digest, lower-case hex. Ends the hasher. */
  hex(): string;
}

/**
 * A faster SHA-256 than the core's own (WASM) that a runtime may supply (bindings/node's
 * nodeHashing(): node:crypto, several times faster, but its state cannot be saved, so the
 * resumable protocol keeps the core's). Optional: without it the core's hasher serves.
 */
export interface HashingPort {
  sha256(): OneShotSha256;
}
