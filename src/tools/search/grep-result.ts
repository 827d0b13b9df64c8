// What a text search found, as both engines report it.
import type { Unsearched } from "./file-list.ts";

/** One matching line. */
export interface GrepMatch {
  /** Relative to the workspace root (absolute when outside it). */
  path: string;
  line: number;
  text: string;
}

/** What a search found: the first `keep` matches, how many in all, and what it could not search. */
export interface GrepResult {
  matches: GrepMatch[];
  total: number;
  files: number;
  /** Files and directories not searched (unreadable, too large, a name no call can hold). */
  unsearched: Unsearched[];
  /** How many files were searched. */
  searched: number;
  /** Binary files (a NUL byte) with a matching line, which grep does not show. */
  binary: string[];
}

/** Counts one matching line (and keeps it while fewer than asked for are kept). */
export type AddMatch = (path: string, line: number, text: string) => void;
