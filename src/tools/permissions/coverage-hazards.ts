// What `--yes` may run depends on what undo can repair, and undo repairs only what the snapshot holds:
// not ignored files (`.env`), files over the size limit, nested repositories, git's own `.git`, nor
// anything at all when the workspace is too big to snapshot or the snapshot fails. This finds a
// command that deletes or overwrites such a path, so that it needs a person's yes.
import { type Dirent, existsSync, readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import {
  afterCd,
  commandName,
  findStarts,
  gitSubcommand,
  type SubCommand,
  scanWords,
  segmentMatcher,
  shortCommand,
  wordPaths,
} from "../command-line/index.ts";
import { displayKey, keyWithin } from "../files/index.ts";
import type { Coverage } from "../undo/index.ts";

// Commands that change nothing in the workspace (unless they redirect into a file).
const READ_ONLY = new Set([
  "ls",
  "cat",
  "head",
  "tail",
  "less",
  "more",
  "wc",
  "grep",
  "rg",
  "egrep",
  "fgrep",
  "find",
  "echo",
  "printf",
  "pwd",
  "which",
  "type",
  "file",
  "stat",
  "du",
  "df",
  "diff",
  "cmp",
  "sort",
  "uniq",
  "cut",
  "tr",
  "true",
  "false",
  "test",
  "[",
  "date",
  "env",
  "printenv",
  "id",
  "whoami",
  "uname",
  "sleep",
  "tree",
  "realpath",
  "dirname",
  "basename",
  "sha256sum",
  "md5sum",
  "jq",
  "cd",
  "pushd",
  "popd",
]);
const READ_ONLY_GIT = new Set([
  "status",
  "diff",
  "log",
  "show",
  "blame",
  "branch",
  "rev-parse",
  "ls-files",
  "grep",
  "describe",
  "shortlog",
]);

// Commands whose operands they delete or overwrite, and which of them.
const ALL_OPERANDS = new Set([
  "rm",
  "rmdir",
  "unlink",
  "shred",
  "srm",
  "trash",
  "trash-put",
  "truncate",
  "mv",
  "tee",
  "sed",
  "perl",
  "chmod",
  "chown",
  "touch",
]);
const LAST_OPERAND = new Set(["cp", "install", "ln", "rsync"]);

/** Whether a simple command may change files (a guess erring towards "yes"). */
export function mayChange(sub: SubCommand): boolean {
  if (sub.opaque || (sub.writes?.length ?? 0) > 0) return true;
  const n = commandName(sub.words[0] ?? "");
  if (n === "find")
    return sub.words.some((w) => w === "-delete" || w.startsWith("-exec") || w.startsWith("-ok"));
  if (n === "git") {
    const sub1 = gitSubcommand(sub.words).sub ?? "";
    if (sub1 === "branch")
      return sub.words.some((w) => /^-[dDmMcC]|^--(delete|move|copy|force)/.test(w));
    return !READ_ONLY_GIT.has(sub1);
  }
  return !READ_ONLY.has(n);
}

/** The words of a command naming paths it deletes or overwrites. */
function targetsOf(sub: SubCommand, cwd: string): string[] {
  const n = commandName(sub.words[0] ?? "");
  const { operands } = scanWords(sub.words);
  // `cp a b dir/` and `mv a dir/` overwrite `dir/a`, not the folder.
  if ((n === "mv" || LAST_OPERAND.has(n)) && operands.length > 1) {
    const dest = operands[operands.length - 1] ?? "";
    const sources = operands.slice(0, -1);
    let isDir = false;
    try {
      isDir = !/[$`*?[~]/.test(dest) && statSync(resolve(cwd, dest)).isDirectory();
    } catch {}
    const written = isDir ? sources.map((src) => `${dest}/${basename(src)}`) : [dest];
    return [...(sub.writes ?? []), ...(n === "mv" ? sources : []), ...written];
  }
  const out = [...(sub.writes ?? [])];
  if (ALL_OPERANDS.has(n)) {
    // `sed`/`perl` change files only in place; their first operand is the script.
    if (n === "sed" || n === "perl") {
      if (sub.words.some((w) => /^-[a-zA-Z]*i/.test(w) || w.startsWith("--in-place")))
        out.push(...operands.slice(1));
    } else out.push(...operands);
  } else if (LAST_OPERAND.has(n) && operands.length > 1)
    out.push(operands[operands.length - 1] ?? "");
  else if (n === "dd")
    out.push(...sub.words.filter((w) => w.startsWith("of=")).map((w) => w.slice(3)));
  else if (n === "find" && mayChange(sub)) out.push(...findStarts(sub.words));
  return out;
}

/** Paths (relative to the root) a word names, globs expanded against the workspace as bash would. */
function expand(word: string, cwd: string, root: string): string[] | null {
  const paths = wordPaths(word, cwd, root);
  if (paths === null) return null;
  const out: string[] = [];
  for (const rel of paths) {
    if (!/[*?[]/.test(rel)) {
      out.push(rel);
      continue;
    }
    let found = [""];
    for (const segment of rel.split("/")) {
      const next: string[] = [];
      const matches = segmentMatcher(segment);
      for (const dir of found) {
        if (!/[*?[]/.test(segment)) {
          next.push(dir ? `${dir}/${segment}` : segment);
          continue;
        }
        let names: string[] = [];
        try {
          names = readdirSync(dir ? resolve(root, dir) : root);
        } catch {}
        for (const entry of names)
          if (entry !== "." && entry !== ".." && matches(entry))
            next.push(dir ? `${dir}/${entry}` : entry);
      }
      found = next;
    }
    out.push(...(found.length > 0 ? found : [rel]));
  }
  return out;
}

// `find` tests that select by name: with only those, `find` reaches an uncovered path only if a
// name there matches.
const NAME_TESTS = new Set(["-name", "-iname"]);

/** The `-name` patterns of a find command, or null when it selects by anything else too broad to check. */
function findNamePatterns(words: string[]): Array<(name: string) => boolean> | null {
  const patterns: Array<(name: string) => boolean> = [];
  // `-o` and `!` select more than the names say.
  if (words.some((w) => w === "-o" || w === "-or" || w === "!" || w === "-not")) return null;
  for (let i = 1; i < words.length; i += 1) {
    const word = words[i] ?? "";
    if (NAME_TESTS.has(word)) {
      const pattern = words[i + 1] ?? "*";
      const matches = segmentMatcher(word === "-iname" ? pattern.toLowerCase() : pattern);
      patterns.push(word === "-iname" ? (n) => matches(n.toLowerCase()) : matches);
    }
  }
  return patterns.length > 0 ? patterns : null;
}

/** Names under `dir` (a bounded walk); null when there are too many to look at. */
function namesUnder(dir: string, limit = 5_000): string[] | null {
  const names: string[] = [];
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      names.push(entry.name);
      if (names.length > limit) return null;
      if (entry.isDirectory()) stack.push(resolve(current, entry.name));
    }
  }
  return names;
}

/** What a `find` selecting by name would reach that the snapshot leaves out, or null. */
function findReaches(
  rel: string,
  patterns: Array<(name: string) => boolean>,
  coverage: Coverage & { type: "partial" },
  root: string,
): string | null {
  const key = rel === "" ? "." : rel;
  const entries: Array<[string, string]> = [
    [".git/", "the repository's history (.git)"],
    ...(coverage.ignored ?? []).map((e): [string, string] => [e, "ignored by .gitignore"]),
    ...coverage.skipped.map((e): [string, string] => [e, "over the snapshot size limit"]),
    ...coverage.nested.map((e): [string, string] => [`${e}/`, "a nested repository"]),
  ];
  for (const [entry, why] of entries) {
    const path = entry.endsWith("/") ? entry.slice(0, -1) : entry;
    if (!keyWithin(key, path) && !keyWithin(path, key)) continue;
    const base = path.split("/").pop() ?? path;
    const names = entry.endsWith("/") ? namesUnder(resolve(root, displayKey(path))) : [];
    if (names === null || [base, ...names].some((name) => patterns.some((p) => p(name))))
      return `${displayKey(path)} (${why})`;
  }
  return coverage.ignored === null ? "files ignored by .gitignore (too many to check)" : null;
}

/** What the snapshot leaves out that lies at `rel` or inside it, for the message; or null. */
function uncoveredAt(
  rel: string,
  coverage: Coverage & { type: "partial" },
  root: string,
): string | null {
  const key = rel === "" ? "." : rel;
  // The whole workspace holds `.git` when there is one.
  if (key === ".git" || keyWithin(".git", key) || (key === "." && existsSync(join(root, ".git"))))
    return "the repository's history (.git)";
  const hits = (entry: string, why: string): string | null => {
    const path = entry.endsWith("/") ? entry.slice(0, -1) : entry;
    return keyWithin(path, key) || keyWithin(key, path) ? `${displayKey(path)} (${why})` : null;
  };
  // Nested repositories and files over the limit first: the snapshot excludes them too, so the
  // ignored list may name a folder that holds them.
  for (const entry of coverage.nested) {
    const hit = hits(entry, "a nested repository");
    if (hit) return hit;
  }
  for (const entry of coverage.skipped) {
    const hit = hits(entry, "over the snapshot size limit");
    if (hit) return hit;
  }
  for (const entry of coverage.ignored ?? []) {
    const hit = hits(entry, "ignored by .gitignore");
    if (hit) return hit;
  }
  if (coverage.ignored === null) return "files ignored by .gitignore (too many to check)";
  // A directory holding `.git` holds git's history too.
  return null;
}

/**
 * The first reason undo could not repair what a command line does, given what the snapshot covers;
 * null when undo covers it.
 */
export async function coverageHazard(
  commands: readonly SubCommand[],
  coverageNow: () => Promise<Coverage>,
  root: string,
): Promise<string | null> {
  const changing = commands.filter(mayChange);
  // A command that only looks needs no snapshot, so nothing is staged to check it.
  if (changing.length === 0) return null;
  const coverage = await coverageNow();
  if (coverage.type === "unavailable")
    return `\`${shortCommand(changing[0]?.text ?? "")}\` may change files, and undo could not repair it: no snapshot of the workspace can be taken (${coverage.reason})`;
  let cwd: string | null = root;
  for (const sub of commands) {
    const n = commandName(sub.words[0] ?? "");
    if (n === "cd" || n === "pushd") {
      cwd = afterCd(cwd, scanWords(sub.words).operands[0]);
      continue;
    }
    if (cwd === null || !mayChange(sub)) continue;
    const byName = n === "find" ? findNamePatterns(sub.words) : null;
    for (const word of targetsOf(sub, cwd)) {
      const paths = expand(word, cwd, root);
      if (paths === null) continue;
      for (const rel of paths) {
        const what = byName
          ? findReaches(rel, byName, coverage, root)
          : uncoveredAt(rel, coverage, root);
        if (what)
          return `\`${shortCommand(sub.text)}\` deletes or overwrites ${what}, which the undo snapshot does not hold, so undo could not restore it`;
      }
    }
  }
  return null;
}
