import { findOnPath } from "./find-on-path.ts";

/**
 * Which search backend nex uses here and whose rules pick the files, in one line for `nex doctor` and
 * `/status`. Never throws: a line that could not be found out says so.
 */
export async function describeSearch(
  _workspace: string,
  env: Record<string, string | undefined>,
  useRipgrep = true,
): Promise<string> {
  const rules = "files: git's listing in a repository, else .gitignore/.ignore/.rgignore";
  try {
    // What the search itself checks, without loading it: whether `rg` is on PATH.
    const binary = useRipgrep ? await findOnPath("rg", env) : null;
    return binary
      ? `ripgrep (${binary}); ${rules}`
      : `JavaScript (ripgrep is not on PATH: the same answers, slower on large trees); ${rules}`;
  } catch (error) {
    return `unknown: ${(error as Error).message}`;
  }
}
