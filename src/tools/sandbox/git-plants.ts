import { spawnSync } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

// Settings with which git runs a program of the repository's choosing (outside any sandbox).
const RUNS_PROGRAMS =
  /^(core\.(hookspath|fsmonitor|sshcommand|pager|editor|askpass)|filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver|alias\..+|credential\..*helper|gpg\..*program|include\.path|includeif\..+\.path|uploadpack\.packobjectshook|sequence\.editor)$/;

/**
 * The repository git will use in the workspace: `.git` as a folder, or the folder a `.git` file
 * names (`gitdir: …`). Null when there is none.
 */
function gitDirOf(workspace: string): string | null {
  const dotGit = join(workspace, ".git");
  try {
    const info = statSync(dotGit);
    if (info.isDirectory()) return dotGit;
    const target = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
    return target ? resolve(workspace, target) : null;
  } catch {
    return null;
  }
}

/** Which hooks folder and config file git would use: their identities (device and inode). */
export function gitIdentity(workspace: string): string {
  const gitDir = gitDirOf(workspace);
  if (!gitDir) return "none";
  const id = (path: string) => {
    try {
      const info = statSync(path);
      return `${info.dev}:${info.ino}`;
    } catch {
      return "-";
    }
  };
  return `${gitDir}|${id(join(gitDir, "hooks"))}|${id(join(gitDir, "config"))}`;
}

/**
 * The read-only mounts hold the hooks and config of the repository that was there when a command
 * started. A command that made another one (`git init`, or `.git` moved aside and replaced, or a
 * `.git` file naming a folder it wrote) is not held by them: what it planted there for git to run
 * later, outside the sandbox, is disarmed here. Hooks lose their execute bit (git then skips them)
 * and program-running settings are removed. Returns what was disarmed.
 */
export function disarmGitPlants(
  workspace: string,
  env: Record<string, string | undefined>,
): string[] {
  const gitDir = gitDirOf(workspace);
  // Outside the workspace the command could write nothing: those hooks are the user's.
  if (!gitDir || !(gitDir === workspace || gitDir.startsWith(`${workspace}/`))) return [];
  const disarmed: string[] = [];
  const hooks = join(gitDir, "hooks");
  let names: string[] = [];
  try {
    names = readdirSync(hooks);
  } catch {
    // No hooks folder.
  }
  for (const name of names) {
    if (name.endsWith(".sample")) continue;
    const path = join(hooks, name);
    try {
      const mode = statSync(path).mode;
      if ((mode & 0o111) === 0) continue;
      chmodSync(path, mode & ~0o111);
      disarmed.push(`.git/hooks/${name} (execute bit removed)`);
    } catch {
      // Gone meanwhile.
    }
  }
  const config = join(gitDir, "config");
  const listed = spawnSync("git", ["config", "--file", config, "--name-only", "--list"], {
    encoding: "utf8",
    env,
  });
  const keys =
    listed.status === 0
      ? listed.stdout.split("\n").filter((key) => RUNS_PROGRAMS.test(key.toLowerCase()))
      : [];
  for (const key of new Set(keys)) {
    spawnSync("git", ["config", "--file", config, "--unset-all", key], { env });
    disarmed.push(`${key} in .git/config (removed)`);
  }
  return disarmed;
}
