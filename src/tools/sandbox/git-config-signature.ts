// What git's answers about a repository's configuration depend on, as a cheap signature: every
// config file git reads for the workspace (system, global, the repository's own, a worktree's common
// folder's, `config.worktree`, every include), identified by inode, size, mtime and ctime, and the
// environment variables that add or redirect configuration. Two equal signatures mean git would read
// the same bytes, so an answer asked of git once (`core.hooksPath`, the program-running settings)
// can be kept: no process per file edit or per command while nothing changed.
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";

type Env = Record<string, string | undefined>;

function identity(path: string): string {
  try {
    const info = statSync(path, { bigint: true });
    return `${path}\0${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}:${info.mode}`;
  } catch {
    return `${path}\0-`;
  }
}

/** The repository folder `.git` names: itself, or the `gitdir:` of a `.git` file (worktrees, submodules). */
function gitDirOf(workspace: string): string {
  const dotGit = join(workspace, ".git");
  try {
    const text = readFileSync(dotGit, "utf8");
    const named = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1];
    if (named) return resolve(workspace, named);
  } catch {
    // A folder (EISDIR) or nothing: `.git` itself.
  }
  return dotGit;
}

function commonDirOf(gitDir: string): string | null {
  try {
    const named = readFileSync(join(gitDir, "commondir"), "utf8").trim();
    return named ? resolve(gitDir, named) : null;
  } catch {
    return null;
  }
}

/** Include targets named in `file` (`[include] path = …`, `[includeIf "…"] path = …`), resolved as git does. */
function includesOf(file: string, env: Env): string[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const found: string[] = [];
  let inInclude = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const section = /^\[\s*([A-Za-z0-9.-]+)/.exec(line);
    if (section) {
      inInclude = /^include(if)?$/i.test(section[1] ?? "");
      continue;
    }
    if (!inInclude) continue;
    const value = /^path\s*=\s*"?(.*?)"?\s*$/i.exec(line)?.[1];
    if (!value) continue;
    const home = env.HOME ?? homedir();
    const expanded = value.startsWith("~/") ? join(home, value.slice(2)) : value;
    found.push(isAbsolute(expanded) ? expanded : resolve(dirname(file), expanded));
  }
  return found;
}

/**
 * The signature of git's configuration for `workspace`, or null when the workspace holds no `.git`.
 * A change to any file git reads (or to the variables that redirect it) changes the signature.
 */
export function gitConfigSignature(workspace: string, env: Env): string | null {
  const dotGit = identity(join(workspace, ".git"));
  if (dotGit.endsWith("\0-")) return null;
  const gitDir = gitDirOf(workspace);
  const commonDir = commonDirOf(gitDir);
  const home = env.HOME ?? homedir();
  const xdg = env.XDG_CONFIG_HOME || join(home, ".config");
  const files = [
    ...(env.GIT_CONFIG_NOSYSTEM ? [] : [env.GIT_CONFIG_SYSTEM ?? "/etc/gitconfig"]),
    ...(env.GIT_CONFIG_GLOBAL !== undefined
      ? [env.GIT_CONFIG_GLOBAL]
      : [join(xdg, "git", "config"), join(home, ".gitconfig")]),
    join(gitDir, "config"),
    join(gitDir, "config.worktree"),
    join(gitDir, "commondir"),
    ...(commonDir ? [join(commonDir, "config")] : []),
  ];
  // Includes of includes, bounded (git itself stops at a depth of 10).
  const seen = new Set<string>();
  const queue = [...files];
  while (queue.length > 0 && seen.size < 64) {
    const file = queue.shift() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    queue.push(...includesOf(file, env));
  }
  const variables = Object.keys(env)
    .filter((key) => key.startsWith("GIT_CONFIG") || key === "GIT_DIR" || key === "GIT_WORK_TREE")
    .sort()
    .map((key) => `${key}=${env[key]}`);
  return [dotGit, gitDir, ...[...seen].map(identity), ...variables].join("\n");
}

/**
 * `ask` answered once per configuration: the same question is asked of git again only when the
 * signature of what git reads changed since (or the workspace has no repository of its own).
 */
export function memoByGitConfig<T>(
  ask: (workspace: string, env: Env, question: string) => T,
): (workspace: string, env: Env, question: string) => T {
  const answers = new Map<string, { signature: string; answer: T }>();
  return (workspace, env, question) => {
    const signature = gitConfigSignature(workspace, env);
    if (signature === null) return ask(workspace, env, question);
    const key = `${workspace}\0${question}`;
    const known = answers.get(key);
    if (known && known.signature === signature) return known.answer;
    const answer = ask(workspace, env, question);
    // Asked again after the answer: a file changed while git read it is not trusted as cached.
    if (gitConfigSignature(workspace, env) === signature) answers.set(key, { signature, answer });
    if (answers.size > 256) answers.delete(answers.keys().next().value as string);
    return answer;
  };
}
