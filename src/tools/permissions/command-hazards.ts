// Commands whose damage `undo` cannot repair: undo restores the workspace from snapshots that hold
// the files git would track, so anything outside the workspace, ignored files (`.env`, local
// databases), a remote's history, a disk or the machine itself is beyond it. These commands need a
// person's yes (or an explicit allow rule); `--yes` alone does not run them.
import { isAbsolute, resolve } from "node:path";
import { isWithin } from "../files/index.ts";
import type { SubCommand } from "../shell/index.ts";
import type { Coverage } from "../undo/index.ts";

/** Where a command line runs and which places outside the workspace the user allowed. */
export interface HazardContext {
  /** The workspace root, as configured and as resolved (symlinks), so either spelling counts. */
  roots: string[];
  allowedPaths: string[];
  /** nex's own data directories (journals, undo checkpoints). */
  privatePaths?: string[];
  home: string | undefined;
  /** What the undo snapshot would leave out now (only asked when a command would run unattended). */
  coverage?: () => Promise<Coverage>;
  /** The workspace's git config pushes with a forced refspec (`push = +...`), so a plain `git push` forces. */
  forcedPushConfig?: boolean;
}

const DELETERS = new Set(["rm", "rmdir", "unlink", "shred", "srm", "trash", "trash-put"]);
const ELEVATORS = new Set(["sudo", "doas", "su", "pkexec", "run0"]);
const DISK_TOOLS = new Set(["fdisk", "sfdisk", "parted", "wipefs", "mkswap"]);
const POWER = new Set(["shutdown", "reboot", "poweroff", "halt"]);

const commandName = (word: string): string => word.replaceAll("\\", "").split("/").pop() ?? "";

/** Operands of a command: its words after the name that are not options (all of them after `--`). */
export function operands(words: string[]): string[] {
  const out: string[] = [];
  let ended = false;
  for (const word of words.slice(1)) {
    if (!ended && word === "--") ended = true;
    else if (ended || !word.startsWith("-") || word === "-") out.push(word);
  }
  return out;
}

function shortFlags(words: string[]): Set<string> {
  const flags = new Set<string>();
  for (const word of words.slice(1)) {
    if (word === "--") break;
    if (/^-[^-]/.test(word)) for (const c of word.slice(1)) flags.add(c);
  }
  return flags;
}

/**
 * The first hazard of a command line, in words a user reads, or null. `cd` is followed from one
 * simple command to the next, so `cd .. && rm -rf ws` is judged where it runs.
 */
export function hazardOf(commands: readonly SubCommand[], context: HazardContext): string | null {
  const root = context.roots[0] ?? "/";
  let cwd: string | null = root;
  for (const command of commands) {
    const words = command.words;
    const name = commandName(words[0] ?? "");
    if (name === "cd" || name === "pushd") {
      cwd = nextDirectory(cwd, operands(words)[0], context);
      continue;
    }
    const hazard = hazardOfOne(name, words, cwd, context);
    if (hazard) return `\`${shorten(command.text)}\` ${hazard}`;
  }
  return null;
}

function nextDirectory(
  cwd: string | null,
  target: string | undefined,
  context: HazardContext,
): string | null {
  if (target === undefined || target === "~") return context.home ?? null;
  const expanded = expandHome(target, context);
  if (expanded === null || cwd === null) return null;
  return resolve(cwd, expanded);
}

function hazardOfOne(
  name: string,
  words: string[],
  cwd: string | null,
  context: HazardContext,
): string | null {
  if (ELEVATORS.has(name)) return "runs with elevated privileges";
  if (name.startsWith("mkfs") || DISK_TOOLS.has(name)) return "formats or repartitions a disk";
  if (name === "dd" && words.some((word) => /^of=\/dev\//.test(word))) return "writes to a device";
  if (POWER.has(name)) return "stops or restarts the machine";
  if (name === "git") return gitHazard(words.slice(1), context);
  if (DELETERS.has(name)) return deletionHazard(operands(words), cwd, context);
  if (name === "mv") return moveHazard(operands(words), cwd, context);
  if (name === "find" && words.includes("-delete")) {
    const starts: string[] = [];
    for (const word of words.slice(1)) {
      if (isExpression(word)) break;
      starts.push(word);
    }
    // find deletes what its tests select, so only where it starts matters, not that it is the workspace.
    return deletionHazard(starts.length > 0 ? starts : ["."], cwd, context, "selective");
  }
  return null;
}

const isExpression = (word: string): boolean => /^[-(!)]/.test(word);

const HISTORY = "which undo cannot restore (undo restores files, not git's history)";

// A push refspec that forces (`+main`, `+refs/heads/*:...`).
const forcedRefspec = (value: string): boolean => /^\+/.test(value) || /^:/.test(value);

function gitHazard(args: string[], context: HazardContext): string | null {
  // `git -C dir` and `git -c key=value` take a value before the subcommand.
  let at = 0;
  let forcedByOption = false;
  while (at < args.length && (args[at] ?? "").startsWith("-")) {
    if (args[at] === "-c" && /^remote\..*\.push=/i.test(args[at + 1] ?? ""))
      forcedByOption ||= forcedRefspec((args[at + 1] ?? "").replace(/^[^=]*=/, ""));
    at += /^-[Cc]$/.test(args[at] ?? "") ? 2 : 1;
  }
  const sub = args[at];
  const rest = args.slice(at + 1);
  const flags = shortFlags(["git", ...rest]);
  const has = (...long: string[]): boolean =>
    rest.some((word) => long.some((l) => word === l || word.startsWith(`${l}=`)));
  if (sub === "stash" && ["clear", "drop"].includes(rest[0] ?? ""))
    return `deletes stashed changes, ${HISTORY}`;
  if (sub === "reflog" && ["expire", "delete"].includes(rest[0] ?? ""))
    return `deletes reflog entries (the way back to lost commits), ${HISTORY}`;
  if (sub === "gc" && has("--prune")) return `prunes unreachable commits, ${HISTORY}`;
  if (sub === "prune") return `prunes unreachable commits, ${HISTORY}`;
  if (sub === "update-ref" && (flags.has("d") || has("--stdin")))
    return `deletes or rewrites references directly, ${HISTORY}`;
  if (
    sub === "branch" &&
    (flags.has("D") || ((flags.has("d") || has("--delete")) && (flags.has("f") || has("--force"))))
  )
    return `force-deletes a branch, ${HISTORY}`;
  if (sub === "tag" && (flags.has("d") || has("--delete"))) return `deletes a tag, ${HISTORY}`;
  if (sub === "filter-branch" || sub === "filter-repo" || sub === "replace")
    return `rewrites the repository's history, ${HISTORY}`;
  if (sub === "config") {
    // `git config [set] [--add] remote.X.push +refspec`, in any of git's spellings.
    const at = rest.findIndex((word) => /^remote\..*\.push$/i.test(word));
    const value = at >= 0 ? rest.slice(at + 1).find((word) => !word.startsWith("-")) : undefined;
    if (value !== undefined && forcedRefspec(value))
      return "configures forced pushes (a `+` refspec), which rewrite history on the remote that undo cannot restore";
  }
  if (sub === "clean") {
    if (flags.has("x") || flags.has("X"))
      return "deletes ignored files (such as .env or local databases), which undo cannot restore";
  }
  if (sub === "push") {
    const forced = rest.some(
      (word) =>
        /^--(force|force-with-lease|mirror|delete|prune)(=|$)/.test(word) ||
        (/^-[^-]/.test(word) && /[fd]/.test(word.slice(1))) ||
        /^[+:]/.test(word),
    );
    if (forced || forcedByOption || context.forcedPushConfig)
      return "rewrites or deletes history on the remote, which undo cannot restore";
  }
  return null;
}

function deletionHazard(
  targets: string[],
  cwd: string | null,
  context: HazardContext,
  scope: "whole" | "selective" = "whole",
): string | null {
  for (const target of targets) {
    const path = resolveWord(target, cwd, context);
    if (path === null)
      return `deletes \`${target}\`, a path nex cannot resolve before it runs (a variable, or after a \`cd\` it cannot follow)`;
    // Deleting a directory that holds nex's data deletes the data too.
    if ((context.privatePaths ?? []).some((dir) => isWithin(dir, path) || isWithin(path, dir)))
      return "deletes nex's own session data (journals and undo checkpoints), which undo needs";
    const root = context.roots.find((dir) => isWithin(dir, path));
    if (root !== undefined) {
      const rest = path.slice(root.length).replace(/^\//, "");
      if (scope === "whole" && (rest === "" || rest === "*" || rest === ".*"))
        return "deletes the whole workspace, including ignored files undo cannot restore";
      if (rest === ".git" || rest.startsWith(".git/"))
        return "deletes the repository's history (.git), which undo cannot restore";
      continue;
    }
    if (context.allowedPaths.some((dir) => isWithin(dir, path))) continue;
    return `deletes ${path}, outside the workspace, which undo cannot restore`;
  }
  return null;
}

// A file moved in from outside is gone from where it was; undo of the turn would then delete the only copy.
function moveHazard(targets: string[], cwd: string | null, context: HazardContext): string | null {
  for (const source of targets.slice(0, -1)) {
    const path = resolveWord(source, cwd, context);
    if (path === null) return `moves \`${source}\`, a path nex cannot resolve before it runs`;
    const inside = [...context.roots, ...context.allowedPaths].some((dir) => isWithin(dir, path));
    if (!inside) return `moves ${path} from outside the workspace, which undo cannot put back`;
  }
  return null;
}

/** A command word as the absolute path it names, or null when nex cannot tell before it runs. */
function resolveWord(word: string, cwd: string | null, context: HazardContext): string | null {
  const expanded = expandHome(word, context);
  return expanded === null || cwd === null ? null : resolve(cwd, expanded);
}

/** `~` and `$HOME` spelled out; null for any other variable or substitution nex cannot evaluate. */
function expandHome(word: string, context: HazardContext): string | null {
  let out = word;
  if (context.home !== undefined) {
    out = out.replace(/^~(?=\/|$)/, context.home).replace(/^\$\{?HOME\}?(?=\/|$)/, context.home);
  }
  if (/[$`]/.test(out) || (out.startsWith("~") && !isAbsolute(out))) return null;
  return out;
}

function shorten(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
