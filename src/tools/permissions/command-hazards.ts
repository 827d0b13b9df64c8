// Commands whose damage `undo` cannot repair: undo restores the workspace from snapshots that hold
// the files git would track, so anything outside the workspace, ignored files (`.env`, local
// databases), a remote's history, a disk or the machine itself is beyond it. These commands need a
// person's yes (or an explicit allow rule); `--yes` alone does not run them.
import { isAbsolute, resolve } from "node:path";
import {
  commandName,
  findStarts,
  gitSubcommand,
  type SubCommand,
  scanWords,
  shortCommand,
} from "../command-line/index.ts";
import { isWithin } from "../files/index.ts";
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
  forcedPushConfig?: () => boolean;
  /** The folder git runs hooks from, relative to the root; null when outside it or there is no repository. */
  hooksDir?: () => string | null;
}

const DELETERS = new Set(["rm", "rmdir", "unlink", "shred", "srm", "trash", "trash-put"]);
const ELEVATORS = new Set(["sudo", "doas", "su", "pkexec", "run0"]);
const DISK_TOOLS = new Set(["fdisk", "sfdisk", "parted", "wipefs", "mkswap"]);
const POWER = new Set(["shutdown", "reboot", "poweroff", "halt"]);

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
      cwd = nextDirectory(cwd, scanWords(words).operands[0], context);
      continue;
    }
    const hazard = hazardOfOne(name, words, cwd, context);
    if (hazard) return `\`${shortCommand(command.text)}\` ${hazard}`;
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
  if (name === "git") return gitHazard(words, context);
  if (DELETERS.has(name)) return deletionHazard(scanWords(words).operands, cwd, context);
  if (name === "mv") return moveHazard(scanWords(words).operands, cwd, context);
  // find deletes what its tests select, so only where it starts matters, not that it is the workspace.
  if (name === "find" && words.includes("-delete"))
    return deletionHazard(findStarts(words), cwd, context, "selective");
  return null;
}

const HISTORY = "which undo cannot restore (undo restores files, not git's history)";

// A push refspec that forces (`+main`, `+refs/heads/*:...`).
const forcedRefspec = (value: string): boolean => /^\+/.test(value) || /^:/.test(value);

function gitHazard(words: string[], context: HazardContext): string | null {
  const { sub, at } = gitSubcommand(words);
  // `git -c remote.origin.push=+main push` forces through a setting given before the subcommand.
  const forcedByOption = words
    .slice(1, at)
    .some(
      (word, i, options) =>
        options[i - 1] === "-c" &&
        /^remote\..*\.push=/i.test(word) &&
        forcedRefspec(word.replace(/^[^=]*=/, "")),
    );
  const rest = words.slice(at + 1);
  const { shortFlags: flags, longOptions } = scanWords(["git", ...rest]);
  const has = (...long: string[]): boolean => long.some((option) => longOptions.has(option));
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
    if (forced || forcedByOption || context.forcedPushConfig?.())
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
