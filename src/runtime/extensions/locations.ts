import { readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import { type OwnFileRead, readOwnFile, readWorkspaceOwnFile } from "../../tools/index.ts";

/** A folder nex reads commands or skills from. */
export interface ExtensionDir {
  /** Absolute path. */
  path: string;
  /** A project's folder is read through the workspace guard; a user's own folder as it is. */
  scope: "project" | "user";
  /** How the user knows it, e.g. `.claude/commands` or `~/.config/nex/skills`. */
  label: string;
}

/** Most entries read from one folder: a folder of thousands is cut, and the cut is reported. */
export const MAX_ENTRIES = 200;

/**
 * The folders of one kind, the first ones winning a name: the user's own (`~/.config/nex/`,
 * `~/.claude/`) first, so a cloned repository cannot replace what the user set up, then the
 * project's (`.nex/`, then `.claude/` as Claude Code users have them).
 */
export function extensionDirs(
  kind: "commands" | "skills" | "agents",
  workspace: string,
  env: Record<string, string | undefined>,
): ExtensionDir[] {
  const home = env.HOME || homedir();
  const config = env.XDG_CONFIG_HOME || join(home, ".config");
  return [
    { path: join(config, "nex", kind), scope: "user", label: `~/.config/nex/${kind}` },
    { path: join(home, ".claude", kind), scope: "user", label: `~/.claude/${kind}` },
    { path: join(workspace, ".nex", kind), scope: "project", label: `.nex/${kind}` },
    { path: join(workspace, ".claude", kind), scope: "project", label: `.claude/${kind}` },
  ];
}

/** An entry of a folder: a name and whether it is a folder. Unreadable folders list nothing. */
export function listDir(path: string): { name: string; dir: boolean }[] {
  try {
    return readdirSync(path, { withFileTypes: true })
      .map((entry) => ({
        name: entry.name,
        dir: entry.isDirectory() || (entry.isSymbolicLink() && !entry.name.endsWith(".md")),
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/**
 * Reads a file of an extension folder, at most `limit` bytes: a project's through the workspace guard
 * (a link that leads out of the workspace is refused), a user's own as a regular file.
 */
export function readExtensionFile(
  dir: ExtensionDir,
  file: string,
  limit: number,
  workspace: string,
): Promise<OwnFileRead> | OwnFileRead {
  if (dir.scope === "user") return readOwnFile(file, limit);
  return readWorkspaceOwnFile({ workspace, name: relative(workspace, file), limit });
}
