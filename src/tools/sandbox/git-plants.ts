import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { climbsOut } from "../files/index.ts";
import { memoByGitConfig } from "./git-config-signature.ts";

// Settings with which git runs a program of the repository's choosing (outside any sandbox).
const RUNS_PROGRAMS =
  /^(core\.(hookspath|fsmonitor|sshcommand|pager|editor|askpass|gitproxy)|filter\..+\.(clean|smudge|process)|diff\.external|diff\..+\.(textconv|command)|merge\..+\.driver|(merge|diff)tool\..+\.(cmd|path)|pager\..+|alias\..+|credential\..*helper|gpg\..*program|include\.path|includeif\..+\.path|uploadpack\.packobjectshook|sequence\.editor|trailer\..+\.(command|cmd)|remote\..+\.(uploadpack|receivepack|vcs)|submodule\..+\.update|protocol\..+\.allow)$/;

/**
 * What git would run of the repository's choosing in the workspace: its hooks (in the folder git
 * really uses: `core.hooksPath`, a `commondir`) and its program-running settings (from every config
 * file it reads: `config`, `config.worktree`, a `commondir`'s, includes). Taken before and after a
 * command, so that what the command changed there, and only that, is disarmed.
 */
export interface GitRunnables {
  hooksDir: string | null;
  /** Hook name → what identifies its content and mode. */
  hooks: Map<string, string>;
  /** `origin file \t key \t value` of each program-running setting. */
  settings: Set<string>;
}

const NONE: GitRunnables = { hooksDir: null, hooks: new Map(), settings: new Set() };

// Reading config and paths runs nothing of the repository's (no status, no fsmonitor). Each answer
// is kept until a file git reads for it changes: no process per edit or command otherwise.
const askGit = memoByGitConfig((workspace, env, question) => {
  const answer = spawnSync("git", ["-c", "core.fsmonitor=", ...question.split("\0")], {
    cwd: workspace,
    encoding: "utf8",
    env: { ...env, GIT_OPTIONAL_LOCKS: "0" },
  });
  return { status: answer.status, stdout: answer.stdout };
});

function git(workspace: string, env: Record<string, string | undefined>, args: string[]) {
  return askGit(workspace, env, args.join("\0"));
}

/**
 * The folder git runs hooks from in `workspace`, as git itself finds it (`core.hooksPath` from any
 * config it reads, a worktree's `commondir`), absolute; null when the workspace has no repository
 * of its own.
 */
export function gitHooksDir(
  workspace: string,
  env: Record<string, string | undefined>,
): string | null {
  if (!existsSync(join(workspace, ".git"))) return null;
  const hooksPath = git(workspace, env, ["rev-parse", "--git-path", "hooks"]);
  return hooksPath.status === 0 ? resolve(workspace, hooksPath.stdout.trim()) : null;
}

/** The values git reads for the settings whose names match `pattern` (`^remote\..*\.push$`). */
export function gitSettings(
  workspace: string,
  env: Record<string, string | undefined>,
  pattern: string,
): string[] {
  if (!existsSync(join(workspace, ".git"))) return [];
  // -z: `key LF value NUL` per entry.
  const listed = git(workspace, env, ["config", "--includes", "-z", "--get-regexp", pattern]);
  if (listed.status !== 0) return [];
  return listed.stdout
    .split("\0")
    .filter((entry) => entry !== "")
    .map((entry) => (entry.includes("\n") ? entry.slice(entry.indexOf("\n") + 1) : ""));
}

/** What git would run in `workspace` now; nothing when it has no repository of its own. */
export function gitRunnables(
  workspace: string,
  env: Record<string, string | undefined>,
): GitRunnables {
  const hooksDir = gitHooksDir(workspace, env);
  if (hooksDir === null && !existsSync(join(workspace, ".git"))) return NONE;
  const hooks = new Map<string, string>();
  let names: string[] = [];
  try {
    names = hooksDir ? readdirSync(hooksDir) : [];
  } catch {
    // No hooks folder.
  }
  for (const name of names) {
    if (name.endsWith(".sample") || !hooksDir) continue;
    try {
      const info = statSync(join(hooksDir, name));
      hooks.set(name, `${info.ino}:${info.mode}:${info.size}:${info.mtimeMs}`);
    } catch {
      // Gone meanwhile.
    }
  }
  const settings = new Set<string>();
  const listed = git(workspace, env, ["config", "--list", "--show-origin", "--includes", "-z"]);
  if (listed.status === 0) {
    // -z: `origin NUL key LF value NUL` per entry.
    const parts = listed.stdout.split("\0");
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const origin = parts[i] ?? "";
      const [key = "", ...value] = (parts[i + 1] ?? "").split("\n");
      if (origin.startsWith("file:") && RUNS_PROGRAMS.test(key.toLowerCase()))
        settings.add(`${origin.slice(5)}\t${key}\t${value.join("\n")}`);
    }
  }
  return { hooksDir, hooks, settings };
}

function inside(workspace: string, path: string): boolean {
  const rel = relative(workspace, path);
  return !climbsOut(rel);
}

/**
 * Disarms what a command added to what git runs: hooks it created or changed lose their execute bit
 * (git then skips them) and program-running settings it added are removed from the file that holds
 * them. Only files in the workspace (the command could write nothing else) are touched; what was
 * there before the command stays. Returns what was disarmed.
 */
export function disarmGitPlants(
  workspace: string,
  before: GitRunnables,
  env: Record<string, string | undefined>,
): string[] {
  const after = gitRunnables(workspace, env);
  const disarmed: string[] = [];
  const show = (path: string) => relative(workspace, path) || ".";
  if (after.hooksDir && inside(workspace, after.hooksDir)) {
    const sameDir = after.hooksDir === before.hooksDir;
    for (const [name, signature] of after.hooks) {
      if (sameDir && before.hooks.get(name) === signature) continue;
      const path = join(after.hooksDir, name);
      try {
        const mode = statSync(path).mode;
        if ((mode & 0o111) === 0) continue;
        chmodSync(path, mode & ~0o111);
        disarmed.push(`${show(path)} (execute bit removed)`);
      } catch {
        // Gone meanwhile.
      }
    }
  }
  for (const entry of after.settings) {
    if (before.settings.has(entry)) continue;
    const [origin = "", key = ""] = entry.split("\t");
    const file = resolve(workspace, origin);
    if (!inside(workspace, file)) continue;
    spawnSync("git", ["config", "--file", file, "--unset-all", key], { env });
    disarmed.push(`${key} in ${show(file)} (removed)`);
  }
  return disarmed;
}
