// Commands that only look (`git status`, `ls`, `cat`, `grep`, `find` without actions...): in ask mode
// they run without a question, as read_file and grep do. Judged on the shell parser's simple
// commands: every one must be a known reader, with no option that writes or runs code, no
// redirection into a file, nothing opaque, and every path it names inside the workspace (or an
// allowed path). Anything else asks as before; the sandbox confines these like every command.
import { homedir } from "node:os";
import { isAbsolute, relative, resolve } from "node:path";
import type { SubCommand } from "../command-line/index.ts";

/** Readers whose every option only changes what is shown; `null` means no option is refused. */
const READERS: Record<string, RegExp | null> = {
  ls: null,
  cat: null,
  head: null,
  tail: null,
  wc: null,
  pwd: null,
  echo: null,
  printf: null,
  cd: null,
  true: null,
  // -C compiles a magic file: it writes one.
  file: /^-C$|^--compile/,
  stat: null,
  tree: /^-o$|^--output/,
  du: null,
  df: null,
  diff: null,
  cmp: null,
  basename: null,
  dirname: null,
  realpath: null,
  readlink: null,
  which: null,
  type: null,
  nl: null,
  cut: null,
  grep: null,
  egrep: null,
  fgrep: null,
  // --pre runs a program on every file searched.
  rg: /^--pre(=|$)|^--pre-glob/,
  sort: /^-o|^--output/,
  // Actions that delete, write files or run programs.
  find: /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/,
};

/** git subcommands that only read, and their options that write a file or run a program. */
const GIT_READERS = new Set(["status", "diff", "log", "show", "blame", "ls-files", "rev-parse"]);
const GIT_REFUSED = /^--output|^--ext-diff$|^--textconv$|^-O|^--open-files-in-pager/;

function commandName(word: string): string {
  return word.split("/").pop() ?? word;
}

function readsOnly(words: string[]): boolean {
  const [first = "", ...rest] = words;
  // A word the shell expands ($HOME, $(...), `...`) may name anything.
  if (words.some((word) => /[$`]/.test(word))) return false;
  // Only a bare name: `./ls` or `/tmp/cat` is whatever program sits there.
  if (first.includes("/")) return false;
  if (first === "git") {
    // A global option before the subcommand (`-c`, `--exec-path`...) can make git run anything.
    const [sub = "", ...options] = rest;
    return GIT_READERS.has(sub) && !options.some((word) => GIT_REFUSED.test(word));
  }
  if (!Object.hasOwn(READERS, commandName(first))) return false;
  const refused = READERS[commandName(first)];
  return !refused || !rest.some((word) => refused.test(word));
}

function inside(path: string, roots: string[]): boolean {
  return roots.some((root) => {
    const rel = relative(root, path);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  });
}

// An operand that names a place outside the workspace (absolute, `~`, or climbing out with `..`).
function namesOutside(words: string[], root: string, allowed: string[]): boolean {
  const home = process.env.HOME || homedir();
  return words.slice(1).some((word) => {
    const value =
      word.includes("=") && word.startsWith("-") ? word.slice(word.indexOf("=") + 1) : word;
    if (value.startsWith("-") || value === "") return false;
    if (!value.includes("/") && !value.startsWith("~") && value !== "..") return false;
    const path = value.startsWith("~")
      ? resolve(home, value.slice(1).replace(/^\//, ""))
      : resolve(root, value);
    return !inside(path, [root, ...allowed]);
  });
}

/** Whether every simple command of a parsed command line only reads, inside the workspace. */
export function isReadOnlyCommandLine(
  commands: readonly SubCommand[],
  roots: readonly string[],
  allowedPaths: readonly string[],
): boolean {
  const root = roots[0];
  if (!root || commands.length === 0) return false;
  return commands.every(
    (sub) =>
      !sub.opaque &&
      (sub.writes?.length ?? 0) === 0 &&
      readsOnly(sub.words) &&
      !roots.every((r) => namesOutside(sub.words, r, [...allowedPaths])),
  );
}
