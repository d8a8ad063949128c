// Types of scripts/error-rules.mjs, for test/core/one-source-of-statuses.test.ts.
export interface SwallowedError {
  /** The file, relative to the repository's root. */
  file: string;
  /** The line of the `catch`. */
  line: number;
  /** The handler's first line, shortened. */
  code: string;
  /** Whether a comment gives the reason. */
  reason: boolean;
}
export interface LiteralStatus {
  file: string;
  line: number;
  /** Where the number stands, shortened. */
  code: string;
}
export const catchFolders: string[];
export const statusFolders: string[];
export function swallowedIn(file: string, text: string): SwallowedError[];
export function literalStatusesIn(file: string, text: string): LiteralStatus[];
export function swallowedErrors(base?: string): SwallowedError[];
export function literalStatuses(base?: string): LiteralStatus[];
