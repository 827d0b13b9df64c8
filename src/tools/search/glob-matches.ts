import { basename } from "node:path";
import { loadGlobMatcher, matchesGlob } from "../files/index.ts";

// Every search may match a glob: the matcher is loaded with this folder (which loads on first use).
await loadGlobMatcher();

/**
 * Whether a file matches a glob: a pattern without `/` matches the file name at any depth,
 * one with `/` matches the path relative to the searched directory.
 */
export function globMatches(glob: string, path: string, dirRel: string | null): boolean {
  if (!glob.includes("/")) return matchesGlob(basename(path), glob);
  const rel = dirRel && path.startsWith(`${dirRel}/`) ? path.slice(dirRel.length + 1) : path;
  return matchesGlob(rel, glob);
}
