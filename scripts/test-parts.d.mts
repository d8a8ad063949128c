// Types of scripts/test-parts.mjs, for test/fixtures/parts.ts.
export interface Part {
  name: string;
  find(): string | null;
  env?: string;
  apt?: string;
  npm?: string;
  cached?: { spec: string; dir: string; platform: string };
  tests: string[];
}
export interface MissingPart extends Part {
  reason: string;
}
export const parts: Part[];
export function part(name: string): Part;
export function locate(part: Part): string | null;
export function howToInstall(part: Part): string;
export function ensureParts(names?: string[], log?: (line: string) => void): MissingPart[];
export function missingReport(missing: MissingPart[], ci?: boolean): string[];
