import { createFileSearch } from "./file-search.ts";

/**
 * Which search backend nex uses here and whose rules pick the files, in one line for `nex doctor` and
 * `/status`. Never throws: a line that could not be found out says so.
 */
export async function describeSearch(
  workspace: string,
  env: Record<string, string | undefined>,
  useRipgrep = true,
): Promise<string> {
  const rules = "files: git's listing in a repository, else .gitignore/.ignore/.rgignore";
  try {
    const backend = await createFileSearch(workspace, env, useRipgrep).describe();
    return backend.binary
      ? `ripgrep (${backend.binary}); ${rules}`
      : `JavaScript (ripgrep is not on PATH: the same answers, slower on large trees); ${rules}`;
  } catch (error) {
    return `unknown: ${(error as Error).message}`;
  }
}
