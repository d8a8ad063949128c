// Types of scripts/function-lengths.mjs, for test/core/function-lengths.test.ts.
export interface FunctionLength {
  /** The file, relative to the repository's root. */
  file: string;
  name: string;
  /** The line it starts on. */
  line: number;
  /** Its lines, nested functions included (a conformance test's body aside). */
  lines: number;
}
export const measuredFolders: string[];
export function functionsOf(file: string, text: string): FunctionLength[];
export function functionLengths(base?: string): FunctionLength[];
