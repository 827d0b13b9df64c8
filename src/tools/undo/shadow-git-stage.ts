import { lstat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { formatCount } from "../../protocol/index.ts";
import { bytesOfKey, parentKey, splitNul } from "../files/index.ts";
import type { ShadowGitCommand } from "./shadow-git-command.ts";
import { impliedMode, type ModeMap, type SnapshotLimits } from "./shadow-git-types.ts";

/** The workspace staged in the shadow index, or why it could not be. */
export type Staged =
  | { type: "taken"; skipped: string[]; modes: ModeMap; nested: string[] }
  | { type: "unavailable"; reason: string };

/** What staging needs: the repository, its runner, and what to leave out. */
export interface StageContext {
  gitDir: string;
  workTree: string;
  git: ShadowGitCommand;
  ensure: () => Promise<void>;
  /** Exclude lines (already escaped) always written to `info/exclude`. */
  excludes: string[];
  limits: SnapshotLimits;
  /** When the previous staging of this repository by this process began (ms), or null. */
  clock: { lastStart: number | null };
}

// git compares a file's change time to the second only (it is built without nanoseconds): a file
// rewritten with its size kept and its modification time put back (`touch -r`), in the same second
// as its change time when git last read it, looks unchanged to git, and its new content would be
// missing from the snapshot. Files whose change time falls in that window (or after) are staged
// from scratch. Before a process's first staging, when the previous one began is not known: a
// minute before the index was last written stands for it.
const UNKNOWN_START_MS = 60_000;
const CLOCK_SLACK_MS = 1_000;

/** Change times at or after this (ms) may hide a change from git; null: nothing staged yet. */
async function rehashFrom(gitDir: string, lastStart: number | null): Promise<number | null> {
  let from = lastStart;
  if (from === null) {
    const index = await lstat(join(gitDir, "index")).catch(() => null);
    if (!index) return null;
    from = index.mtimeMs - UNKNOWN_START_MS;
  }
  // The kernel's file times come from a coarse clock: a whole second earlier, and a little more.
  return Math.floor((from - CLOCK_SLACK_MS) / 1000) * 1000;
}

export function escapeExcludeBytes(key: string): Buffer {
  const out: number[] = [0x2f];
  for (const byte of bytesOfKey(key)) {
    if ("\\*?[]!# \t\n\r".includes(String.fromCharCode(byte))) out.push(0x5c);
    out.push(byte);
  }
  return Buffer.from(out);
}

/** Paths as `update-index -z --stdin` reads them: exact bytes, each ended by a NUL. */
function nulList(keys: string[]): Buffer {
  return Buffer.concat(keys.flatMap((key) => [bytesOfKey(key), Buffer.from([0])]));
}

/** Modes git cannot hold, and the size over the limits, of the listed files (and their folders). */
async function measure(
  files: string[],
  limits: SnapshotLimits,
  absBytes: (key: string) => Buffer,
  rehashSince: number | null,
): Promise<{ skipped: string[]; modes: ModeMap; total: number; recent: string[] }> {
  const skipped: string[] = [];
  const recent: string[] = [];
  const modes: ModeMap = {};
  const dirs = new Set<string>();
  let total = 0;
  for (const path of files) {
    const info = await lstat(absBytes(path)).catch(() => null);
    if (!info || info.isDirectory()) continue;
    if (info.size > limits.maxFileBytes) skipped.push(path);
    else {
      total += info.size;
      if (rehashSince !== null && info.ctimeMs >= rehashSince) recent.push(path);
    }
    if (info.isFile()) {
      const mode = info.mode & 0o7777;
      if (mode !== impliedMode(mode & 0o100 ? "100755" : "100644")) modes[path] = mode;
    }
    for (let dir = parentKey(path); dir !== "." && !dirs.has(dir); dir = parentKey(dir))
      dirs.add(dir);
  }
  for (const dir of dirs) {
    const info = await lstat(absBytes(dir)).catch(() => null);
    if (info?.isDirectory() && (info.mode & 0o7777) !== 0o755)
      modes[`${dir}/`] = info.mode & 0o7777;
  }
  return { skipped, modes, total, recent };
}

/** Stages the workspace into the shadow index as it is now, within the limits. */
export async function stageWorkspace({
  gitDir,
  workTree,
  git,
  ensure,
  excludes,
  limits,
  clock,
}: StageContext): Promise<Staged> {
  const started = Date.now();
  const rootBytes = Buffer.from(workTree, "utf8");
  const absBytes = (key: string): Buffer =>
    key === "." ? rootBytes : Buffer.concat([rootBytes, Buffer.from("/"), bytesOfKey(key)]);
  await ensure();
  await writeFile(join(gitDir, "info", "exclude"), `${excludes.join("\n")}\n`);
  const listed = splitNul(
    await git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"]),
  );
  // A nested repository is listed as `dir/` (git does not descend into it). It is left out: its
  // files are its own repository's, and one with no commit yet would make `git add` fail whole.
  const nested = [...new Set(listed.filter((key) => key.endsWith("/")))].map((key) =>
    key.slice(0, -1),
  );
  const files = [...new Set(listed.filter((key) => !key.endsWith("/")))];
  if (files.length > limits.maxFiles) {
    return {
      type: "unavailable",
      reason: `the workspace has more than ${formatCount(limits.maxFiles)} files`,
    };
  }
  const rehashSince = await rehashFrom(gitDir, clock.lastStart);
  const { skipped, modes, total, recent } = await measure(files, limits, absBytes, rehashSince);
  if (total > limits.maxTotalBytes) {
    return {
      type: "unavailable",
      reason: `the workspace holds more than ${Math.round(limits.maxTotalBytes / 2 ** 20)} MiB`,
    };
  }
  await writeFile(
    join(gitDir, "info", "exclude"),
    Buffer.concat(
      [
        ...excludes.map((e) => Buffer.from(e)),
        ...[...skipped, ...nested].map(escapeExcludeBytes),
      ].flatMap((line) => [line, Buffer.from("\n")]),
    ),
  );
  // Out of the index, each exact path (a folder replaced by a file keeps its entries for `add`):
  // the files over the limit stay out (excluded above); the recent ones are hashed again.
  const unstaged = [...skipped, ...recent];
  if (unstaged.length > 0)
    await git(["update-index", "--force-remove", "-z", "--stdin"], nulList(unstaged));
  // The recent ones go back by exact path, not by `add -A`: a tracked file that an ignore rule now
  // matches would be left out by it (and reported deleted). `--remove` drops one gone since.
  if (recent.length > 0)
    await git(["update-index", "--add", "--remove", "--replace", "-z", "--stdin"], nulList(recent));
  await git(["add", "-A"]);
  clock.lastStart = started;
  return { type: "taken", skipped, modes, nested };
}
