// The files git reads for a workspace, found by reading them, not by running git (no process per
// command): the repository's git folders (a `.git` file's `gitdir:`, a `commondir`, every worktree's
// folder, every submodule's folder under `modules/`, at any depth), the config files of each (with
// `include.path` and every `includeIf.*.path` target, whatever its condition), and the hooks folders
// git runs from (`hooks`, `core.hooksPath` wherever it points).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** One `key = value` of a config file, with the lines that hold it. */
export interface ConfigEntry {
  /** `section.subsection.key` with section and key lower-cased, as git names it. */
  key: string;
  value: string;
  /** The first and last line (0-based) the entry spans (a value may continue over lines). */
  lines: [number, number];
}

const MAX_DEPTH = 10;

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A config value as git reads it: quotes dropped, escapes undone, an unquoted comment cut. */
function unquote(raw: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '"') quoted = !quoted;
    else if (c === "\\" && i + 1 < raw.length) {
      const next = raw[++i];
      out += next === "n" ? "\n" : next === "t" ? "\t" : next === "b" ? "\b" : next;
    } else if (!quoted && (c === "#" || c === ";")) break;
    else out += c;
  }
  return out.trim();
}

/** The entries of a git config file (a lenient reading: what git would read, and a little more). */
export function parseGitConfig(text: string): ConfigEntry[] {
  const lines = text.split("\n");
  const entries: ConfigEntry[] = [];
  let section = "";
  for (let i = 0; i < lines.length; i++) {
    let line = (lines[i] ?? "").replace(/\r$/, "");
    const first = i;
    // A section header, possibly followed by an entry on the same line.
    const header = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (header) {
      const [name = "", sub] = [header[1], header[2]];
      section =
        sub !== undefined
          ? `${name.toLowerCase()}.${sub.replace(/\\(.)/g, "$1")}`
          : // `[section.sub]`: the old form, its subsection lower-cased.
            name.toLowerCase();
      line = line.slice(header[0].length);
    }
    const entry = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(line);
    if (!entry || section === "") continue;
    let raw = entry[2] ?? "";
    // A backslash at the end of a line continues the value on the next.
    while (/(^|[^\\])(\\\\)*\\$/.test(raw) && i + 1 < lines.length) {
      raw = raw.slice(0, -1) + (lines[++i] ?? "").replace(/\r$/, "");
    }
    entries.push({
      key: `${section}.${(entry[1] ?? "").toLowerCase()}`,
      value: entry[2] === undefined ? "true" : unquote(raw),
      lines: [first, i],
    });
  }
  return entries;
}

/** The folder a `.git` path stands for: itself, or the `gitdir:` a `.git` file names. */
export function gitDirOf(dotGit: string): string | null {
  if (isDir(dotGit)) return dotGit;
  const text = readText(dotGit);
  const target = text ? /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1] : undefined;
  if (!target) return null;
  const dir = resolve(dirname(dotGit), target);
  return isDir(dir) ? dir : null;
}

/** The common folder of a git folder (a worktree's `commondir`), else the folder itself. */
export function commonDirOf(gitDir: string): string {
  const named = readText(join(gitDir, "commondir"))?.trim();
  if (!named) return gitDir;
  const dir = resolve(gitDir, named);
  return isDir(dir) ? dir : gitDir;
}

/**
 * Every git folder of the workspace's repository: its own, the common one, each worktree's
 * (`worktrees/*`) and each submodule's (`modules/**`, where a name with slashes nests folders).
 * Empty when the workspace has no `.git`.
 */
export function gitDirsOf(workspace: string): string[] {
  const own = gitDirOf(join(workspace, ".git"));
  if (!own) return [];
  const found = new Set<string>();
  const subfolders = (dir: string) => {
    try {
      return readdirSync(dir)
        .map((name) => join(dir, name))
        .filter(isDir);
    } catch {
      return [];
    }
  };
  const visit = (dir: string, depth: number): void => {
    if (found.has(dir) || depth > MAX_DEPTH) return;
    found.add(dir);
    visit(commonDirOf(dir), depth + 1);
    for (const child of subfolders(join(dir, "worktrees"))) visit(child, depth + 1);
    for (const child of subfolders(join(dir, "modules"))) module(child, depth + 1);
  };
  // A git folder has a HEAD; a folder without one holds the rest of a nested submodule name.
  const module = (dir: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (readText(join(dir, "HEAD")) !== null) visit(dir, depth);
    else for (const child of subfolders(dir)) module(child, depth + 1);
  };
  visit(own, 0);
  return [...found];
}

function expandHome(path: string, home: string | undefined): string | null {
  if (path === "~" || path.startsWith("~/")) return home ? join(home, path.slice(2)) : null;
  return path;
}

/**
 * The config files git reads for a git folder, in order: system, global, the common folder's
 * `config`, the folder's `config.worktree`, each followed by what it includes (relative to it).
 */
export function configFilesOf(
  gitDir: string,
  home: string | undefined,
  xdgConfigHome: string | undefined,
): string[] {
  const files: string[] = [];
  const seen = new Set<string>();
  const add = (file: string, depth: number) => {
    if (seen.has(file) || depth > MAX_DEPTH) return;
    seen.add(file);
    const text = readText(file);
    if (text === null) return;
    files.push(file);
    for (const entry of parseGitConfig(text)) {
      if (!/^(include|includeif\..*)\.path$/.test(entry.key)) continue;
      const target = expandHome(entry.value, home);
      if (target) add(isAbsolute(target) ? target : resolve(dirname(file), target), depth + 1);
    }
  };
  const xdg = xdgConfigHome ?? (home ? join(home, ".config") : undefined);
  add("/etc/gitconfig", 0);
  if (xdg) add(join(xdg, "git", "config"), 0);
  if (home) add(join(home, ".gitconfig"), 0);
  add(join(commonDirOf(gitDir), "config"), 0);
  add(join(gitDir, "config.worktree"), 0);
  return files;
}

/** Where the hooks of a git folder are: `core.hooksPath` (last one read wins), else `hooks`. */
export function hooksDirOf(
  gitDir: string,
  worktree: string,
  configs: { file: string; entries: ConfigEntry[] }[],
  home: string | undefined,
): string {
  let hooksPath: string | null = null;
  for (const { entries } of configs)
    for (const entry of entries) if (entry.key === "core.hookspath") hooksPath = entry.value;
  const expanded = hooksPath ? expandHome(hooksPath, home) : null;
  if (expanded) return isAbsolute(expanded) ? expanded : resolve(worktree, expanded);
  return join(commonDirOf(gitDir), "hooks");
}

/** Reads a config file's entries; none when it cannot be read. */
export function readConfig(file: string): ConfigEntry[] {
  const text = readText(file);
  return text === null ? [] : parseGitConfig(text);
}
