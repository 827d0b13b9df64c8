// nex's data directory (journals, checkpoints) may lie inside the user's repository (`--data-dir
// workspace` puts it at `./.nex`): a `git add -A` there must not commit nex's records of the session.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Creates the data directory (0700) with a `.gitignore` of `*` in it, so git ignores everything in it,
 * the `.gitignore` included, wherever the directory lies. A `.gitignore` already there is left alone.
 */
export function prepareDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(
      join(dataDir, ".gitignore"),
      "# nex's session data (journals, undo checkpoints): never part of a commit.\n*\n",
      { flag: "wx", mode: 0o600 },
    );
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  }
}
