import { basename } from "node:path";
import { matchesGlob } from "../files/index.ts";

/**
 * Whether a file matches a glob: a pattern without `/` matches the file name at any depth,
 * one with `/` matches the path relative to the searched directory.
 */
export function globMatches(glob: string, path: string, dirRel: string | null): boolean {
  if (!glob.includes("/")) return matchesGlob(basename(path), glob);
  const rel = dirRel && path.startsWith(`${dirRel}/`) ? path.slice(dirRel.length + 1) : path;
  return matchesGlob(rel, glob);
}
