import { spawnSync } from "node:child_process";
import { chmodSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

// Settings with which git runs a program of the repository's choosing (outside any sandbox).
const RUNS_PROGRAMS =
  /^(core\.(hookspath|fsmonitor|sshcommand|pager|editor|askpass)|filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver|alias\..+|credential\..*helper|gpg\..*program|include\.path|includeif\..+\.path|uploadpack\.packobjectshook|sequence\.editor)$/;

/**
 * A command that creates the workspace's repository (`git init`) is not held by the read-only mounts
 * of hooks and config, which exist only for a repository that was there when it started. What it
 * planted for git to run later, outside the sandbox, is disarmed here: hooks lose their execute bit
 * (git then skips them) and program-running settings are removed. Returns what was disarmed.
 */
export function disarmGitPlants(
  workspace: string,
  env: Record<string, string | undefined>,
): string[] {
  const gitDir = join(workspace, ".git");
  try {
    if (!statSync(gitDir).isDirectory()) return [];
  } catch {
    return [];
  }
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
