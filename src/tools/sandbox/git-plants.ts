import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { climbsOut } from "../files/index.ts";
import { memoByGitConfig } from "./git-config-signature.ts";
import {
  type ConfigEntry,
  configFilesOf,
  gitDirsOf,
  hooksDirOf,
  parseGitConfig,
  readConfig,
} from "./git-files.ts";

// Settings with which git runs a program of the repository's choosing (outside any sandbox).
const RUNS_PROGRAMS =
  /^(core\.(hookspath|fsmonitor|sshcommand|pager|editor|askpass|gitproxy)|filter\..+\.(clean|smudge|process)|diff\.external|diff\..+\.(textconv|command)|merge\..+\.driver|(merge|diff)tool\..+\.(cmd|path)|pager\..+|alias\..+|credential\..*helper|gpg\..*program|include\.path|includeif\..+\.path|uploadpack\.packobjectshook|sequence\.editor|trailer\..+\.(command|cmd)|remote\..+\.(uploadpack|receivepack|vcs)|submodule\..+\.update|protocol\..+\.allow)$/;

/**
 * What git would run of the repository's choosing in the workspace, read from the files git reads
 * (`git-files.ts`; no git process): the hooks of every hooks folder git runs from (each git folder's
 * `hooks`, `core.hooksPath` wherever it points, and, for husky's `.husky/_`, the scripts beside it
 * that its hooks run), and the program-running settings of every config file (each git folder's,
 * submodules' and worktrees' included, with their includes). Taken before and after a command, so
 * that what the command changed there, and only that, is disarmed.
 */
export interface GitRunnables {
  /** Hooks folder → hook name → what identifies its content and mode. */
  hooks: Map<string, Map<string, string>>;
  /** Folders of scripts that hooks run (husky's `.husky` beside `.husky/_`): changes are reported. */
  sourced: Set<string>;
  /** `file \t key \t value` of each program-running setting. */
  settings: Set<string>;
}

const NONE: GitRunnables = { hooks: new Map(), sourced: new Set(), settings: new Set() };

// Loaded when git is first asked, not with this file: a file edit's permission check loads it, and
// outside a repository (or with every answer remembered) no process is started at all.
const childProcess = () => process.getBuiltinModule("node:child_process");

// Reading config and paths runs nothing of the repository's (no status, no fsmonitor). Each answer
// is kept until a file git reads for it changes: no process per edit or command otherwise.
const askGit = memoByGitConfig((workspace, env, question) => {
  const answer = childProcess().spawnSync(
    "git",
    ["-c", "core.fsmonitor=", ...question.split("\0")],
    {
      cwd: workspace,
      encoding: "utf8",
      env: { ...env, GIT_OPTIONAL_LOCKS: "0" },
    },
  );
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

/** The files in `dir` with what identifies their content and mode; empty when it is not there. */
function signatures(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    if (name.endsWith(".sample")) continue;
    try {
      const info = statSync(join(dir, name));
      if (info.isFile()) out.set(name, `${info.ino}:${info.mode}:${info.size}:${info.mtimeMs}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

/** The hooks folders and config files git reads for `workspace`, from its files. */
export function gitControlFiles(
  workspace: string,
  env: Record<string, string | undefined>,
): { gitDirs: string[]; hookDirs: string[]; sourced: string[]; configs: string[] } {
  const gitDirs = gitDirsOf(workspace);
  const parsed = new Map<string, ConfigEntry[]>();
  const entriesOf = (file: string) => {
    let entries = parsed.get(file);
    if (!entries) {
      entries = readConfig(file);
      parsed.set(file, entries);
    }
    return entries;
  };
  const hookDirs = new Set<string>();
  const sourced = new Set<string>();
  for (const gitDir of gitDirs) {
    const configs = configFilesOf(gitDir, env.HOME, env.XDG_CONFIG_HOME).map((file) => ({
      file,
      entries: entriesOf(file),
    }));
    // A submodule's work tree is its `core.worktree`, relative to its git folder.
    const worktreeSetting = configs
      .flatMap(({ entries }) => entries)
      .findLast((entry) => entry.key === "core.worktree")?.value;
    const worktree = worktreeSetting ? resolve(gitDir, worktreeSetting) : workspace;
    const hooks = hooksDirOf(gitDir, worktree, configs, env.HOME);
    hookDirs.add(hooks);
    // husky: `.husky/_/<hook>` runs `.husky/<hook>`.
    if (basename(hooks) === "_") sourced.add(dirname(hooks));
  }
  return { gitDirs, hookDirs: [...hookDirs], sourced: [...sourced], configs: [...parsed.keys()] };
}

/** What git would run in `workspace` now; nothing when it has no repository of its own. */
export function gitRunnables(
  workspace: string,
  env: Record<string, string | undefined>,
): GitRunnables {
  const found = gitControlFiles(workspace, env);
  if (found.gitDirs.length === 0) return NONE;
  const hooks = new Map<string, Map<string, string>>();
  for (const dir of [...found.hookDirs, ...found.sourced]) hooks.set(dir, signatures(dir));
  const settings = new Set<string>();
  for (const file of found.configs)
    for (const entry of readConfig(file))
      if (RUNS_PROGRAMS.test(entry.key)) settings.add(`${file}\t${entry.key}\t${entry.value}`);
  return { hooks, sourced: new Set(found.sourced), settings };
}

function inside(workspace: string, path: string): boolean {
  const rel = relative(workspace, path);
  return !climbsOut(rel);
}

/**
 * Comments out, in `file`, the entries of `key` with `value`: git no longer reads them, and the user
 * sees what was there and why. Returns whether any was.
 */
function commentOut(file: string, key: string, value: string): boolean {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return false;
  }
  const lines = text.split("\n");
  let changed = false;
  for (const entry of parseGitConfig(text)) {
    if (entry.key !== key || entry.value !== value) continue;
    for (let i = entry.lines[0]; i <= entry.lines[1]; i++) {
      const line = lines[i] ?? "";
      // A `[section] key = value` line keeps its section header.
      const header = /^\s*\[[^\]]*\]/.exec(line)?.[0] ?? "";
      lines[i] =
        `${header}# disarmed by nex (set by a sandboxed command): ${line.slice(header.length)}`;
    }
    changed = true;
  }
  if (changed) {
    const mode = statSync(file).mode;
    const temp = `${file}.nex-disarm`;
    writeFileSync(temp, lines.join("\n"), { mode: mode & 0o7777 });
    renameSync(temp, file);
  }
  return changed;
}

/**
 * Disarms what a command added to what git runs: hooks it created or changed lose their execute bit
 * (git then skips them) and program-running settings it added are commented out in the file that
 * holds them. Scripts that hooks run (husky's) cannot be disarmed that way: their change is named.
 * Only files in the workspace (the command could write nothing else) are touched; what was there
 * before the command stays. Returns what was disarmed or needs a look.
 */
export function disarmGitPlants(
  workspace: string,
  before: GitRunnables,
  env: Record<string, string | undefined>,
): string[] {
  const after = gitRunnables(workspace, env);
  const disarmed: string[] = [];
  const show = (path: string) => relative(workspace, path) || ".";
  for (const [dir, files] of after.hooks) {
    if (!inside(workspace, dir)) continue;
    const earlier = before.hooks.get(dir);
    for (const [name, signature] of files) {
      if (earlier?.get(name) === signature) continue;
      const path = join(dir, name);
      if (after.sourced.has(dir)) {
        disarmed.push(
          `${show(path)} (changed; git's hooks run it: read it before the next commit)`,
        );
        continue;
      }
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
    const [file = "", key = "", ...value] = entry.split("\t");
    if (!inside(workspace, file)) continue;
    if (commentOut(file, key, value.join("\t"))) disarmed.push(`${key} in ${show(file)} (removed)`);
  }
  return disarmed;
}
