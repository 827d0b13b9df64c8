// Which workspace paths a command line names. A file that changed while a command ran may have been
// changed by the command or by someone else at the same moment (the user saving in an editor): the
// snapshots around the command cannot tell them apart, and nothing unprivileged can say which process
// wrote a file. A change counts as the command's only when the command names the path (an operand, a
// redirection target, a glob that matches it, or a directory holding it) or is a git command that
// rewrites the work tree; undo leaves any other change alone and says so.
import { relative, resolve } from "node:path";
import { bytesOfKey, climbsOut, displayKey } from "../files/index.ts";
import { commandName, gitSubcommand } from "./command-words.ts";
import { parseCommand } from "./shell-commands.ts";

/** Decides whether a path (a key relative to the workspace root) is named by a command. */
export type NamedPaths = (key: string) => boolean;

// git subcommands that rewrite files of the work tree without naming them.
const GIT_TREE_WRITERS = new Set([
  "checkout",
  "switch",
  "restore",
  "reset",
  "stash",
  "merge",
  "pull",
  "rebase",
  "cherry-pick",
  "revert",
  "apply",
  "am",
  "clean",
  "rm",
  "mv",
]);

/** `{a,b}` expanded (one level at a time, as bash does, left to right). */
export function expandBraces(word: string): string[] {
  const match = /\{([^{}]*,[^{}]*)\}/.exec(word);
  if (!match) return [word];
  const head = word.slice(0, match.index);
  const tail = word.slice(match.index + match[0].length);
  return (match[1] ?? "").split(",").flatMap((part) => expandBraces(`${head}${part}${tail}`));
}

/** A matcher of one path segment against a bash glob segment (`*`, `?`, `[...]`). */
export function segmentMatcher(segment: string): (name: string) => boolean {
  if (!/[*?[]/.test(segment)) return (name) => name === segment;
  let source = "";
  for (let i = 0; i < segment.length; i += 1) {
    const c = segment[i] ?? "";
    if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else if (c === "[") {
      const end = segment.indexOf("]", i + 2);
      if (end < 0) source += "\\[";
      else {
        const body = segment
          .slice(i + 1, end)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\");
        source += `[${body}]`;
        i = end;
      }
    } else source += c.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  const regex = new RegExp(`^${source}$`, "s");
  // Like bash, a pattern matches a leading dot only when it starts with one.
  return (name) => regex.test(name) && (!name.startsWith(".") || segment.startsWith("."));
}

/** The directory a `cd` to `target` leads to; null when nex cannot tell before it runs. */
export function afterCd(cwd: string | null, target: string | undefined): string | null {
  return target === undefined || cwd === null || /[$`~]/.test(target) ? null : resolve(cwd, target);
}

/**
 * The workspace paths a command word names, relative to `root` ("" is the root itself): braces
 * expanded, resolved from `cwd`, those outside the root left out; globs are left to the caller.
 * Null when nex cannot tell before the command runs (a variable, a substitution, `~`).
 */
export function wordPaths(word: string, cwd: string, root: string): string[] | null {
  if (/[$`]/.test(word) || word.startsWith("~")) return null;
  const paths: string[] = [];
  for (const expanded of expandBraces(word)) {
    const rel = relative(root, resolve(cwd, expanded));
    if (!climbsOut(rel)) paths.push(rel);
  }
  return paths;
}

/** The matcher of the paths a command names, relative to the workspace root `root`. */
export async function namedPaths(command: string, root: string): Promise<NamedPaths> {
  const parsed = await parseCommand(command).catch(() => null);
  if (parsed?.type !== "parsed") return () => false;
  const patterns: Array<Array<(name: string) => boolean>> = [];
  let all = false;
  let cwd: string | null = root;
  for (const sub of parsed.commands) {
    const name = commandName(sub.words[0] ?? "");
    const operands = sub.words
      .slice(1)
      .map((word) => (word.startsWith("-") ? (/^--?[^=]+=(.+)$/.exec(word)?.[1] ?? null) : word))
      .filter((word): word is string => word !== null);
    if (name === "cd" || name === "pushd") {
      cwd = afterCd(cwd, operands[0]);
      continue;
    }
    if (cwd === null) continue;
    if (name === "git" && GIT_TREE_WRITERS.has(gitSubcommand(sub.words).sub ?? "")) {
      all = true;
      continue;
    }
    for (const word of [...operands, ...(sub.writes ?? [])]) {
      for (const rel of wordPaths(word, cwd, root) ?? []) {
        if (rel === "") all = true;
        else patterns.push(rel.split("/").map(segmentMatcher));
      }
    }
  }
  if (all) return () => true;
  return (key) => {
    // A name that is not UTF-8 reaches the parser with its bad bytes replaced (U+FFFD): both
    // spellings are tried.
    const spellings = [displayKey(key), bytesOfKey(key).toString("utf8")];
    return spellings.some((spelling) => {
      const segments = spelling.split("/");
      return patterns.some(
        (pattern) =>
          pattern.length <= segments.length &&
          pattern.every((matches, i) => matches(segments[i] ?? "")),
      );
    });
  };
}
