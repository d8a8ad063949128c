/** Identifiers and randomness. Tests replace it for reproducible ids. */
export interface IdsPort {
  /** A new RFC 4122 version-4 UUID. */
  uuid(): string;
  /** `length` cryptographically random bytes. */
  randomBytes(length: number): Uint8Array;
}

export const webCryptoIds: IdsPort = {
  uuid: () => crypto.randomUUID(),
  randomBytes: (length) => crypto.getRandomValues(new Uint8Array(length)),
};
