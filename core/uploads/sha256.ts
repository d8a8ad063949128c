/**
 * The SHA-256 of an upload, taken as its bytes arrive, whose state can be saved after an append
 * and loaded by whichever instance takes the next one (docs/uploads.md, "The hash state"). WASM
 * (hash-wasm, no dependencies): a web-standard global, so the core stays pure; its state is 116
 * bytes, kept as base64 in the upload-state port.
 */
import { createSHA256, type IHasher } from 'hash-wasm';
import type { HashingPort, OneShotSha256 } from '../ports/hashing.js';

export interface ResumableSha256 {
  update(bytes: Uint8Array): void;
  /** The state after every byte given so far, to continue later (base64). */
  save(): string;
  /** The digest of every byte given so far, lower-case hex. Ends the hasher. */
  hex(): string;
  /** The digest as base64 (the tus checksum extension's form). Ends the hasher. */
  base64(): string;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function wrap(hasher: IHasher): ResumableSha256 {
  return {
    update: (bytes) => void hasher.update(bytes),
    save: () => toBase64(hasher.save()),
    hex: () => hasher.digest('hex'),
    base64: () => toBase64(hasher.digest('binary')),
  };
}

/** A new hasher, or one continued from a saved state. A state that is not one throws. */
export async function resumableSha256(saved?: string | null): Promise<ResumableSha256> {
  const hasher = await createSHA256();
  if (saved) hasher.load(fromBase64(saved));
  else hasher.init();
  return wrap(hasher);
}

/** A hasher for bytes taken in one go: the runtime's (ports.hashing, node:crypto on Node) where a binding gave one, else the core's own. */
export async function oneShotSha256(hashing: HashingPort | undefined): Promise<OneShotSha256> {
  return hashing?.sha256() ?? (await resumableSha256());
}
