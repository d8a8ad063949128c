import { ApiError, invalidInput } from '../errors.js';

/** A version string: 1 to 64 characters of [0-9A-Za-z.+-] (the contract's rule). */
export const versionPattern = /^[0-9A-Za-z.+-]{1,64}$/;

interface SemVer {
  core: [number, number, number];
  pre: string[];
}

/** A semantic version (2.0.0, 1.2.3-beta.1, with optional build metadata, which never orders); null otherwise. */
export function parseSemVer(text: string): SemVer | null {
  const match = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/.exec(text);
  if (!match) return null;
  const core = [Number(match[1]), Number(match[2]), Number(match[3])] as [number, number, number];
  if (!core.every(Number.isSafeInteger)) return null;
  return { core, pre: match[4] ? match[4].split('.') : [] };
}

/** Semantic version precedence (semver.org, item 11): negative when a < b, 0 when equal, positive when a > b. */
export function compareSemVer(a: SemVer, b: SemVer): number {
  for (let i = 0; i < 3; i++) if (a.core[i] !== b.core[i]) return a.core[i]! - b.core[i]!;
  if (a.pre.length === 0 || b.pre.length === 0) return b.pre.length - a.pre.length;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i]!;
    const y = b.pre[i]!;
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return Number(x) - Number(y);
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.pre.length - b.pre.length;
}

/**
 * Checks a new version string against the listing's earlier ones (the live one among them): a
 * string used before is 409 CONFLICT; when it and an earlier one both parse as semantic versions,
 * it must be higher (409 VERSION_NOT_HIGHER, naming the higher one).
 */
export function checkNewVersion(version: string, earlier: readonly string[]): void {
  if (!versionPattern.test(version)) throw invalidInput('version', 'must be 1 to 64 characters of letters, digits, ".", "+" and "-"');
  if (earlier.includes(version)) throw new ApiError('CONFLICT', `version: ${version} was used before by this listing; choose another.`, { details: [{ path: 'version', message: 'was used before by this listing' }] });
  const next = parseSemVer(version);
  if (!next) return;
  const higher = earlier.find((other) => {
    const parsed = parseSemVer(other);
    return parsed !== null && compareSemVer(next, parsed) <= 0;
  });
  if (higher !== undefined) {
    const message = `must be higher than ${higher}, an earlier version of this listing`;
    throw new ApiError('VERSION_NOT_HIGHER', `version ${message}.`, { details: [{ path: 'version', message }] });
  }
}
