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
}

export function escapeExcludeBytes(key: string): Buffer {
  const out: number[] = [0x2f];
  for (const byte of bytesOfKey(key)) {
    if ("\\*?[]!# \t\n\r".includes(String.fromCharCode(byte))) out.push(0x5c);
    out.push(byte);
  }
  return Buffer.from(out);
}

/** Modes git cannot hold, and the size over the limits, of the listed files (and their folders). */
async function measure(
  files: string[],
  limits: SnapshotLimits,
  absBytes: (key: string) => Buffer,
): Promise<{ skipped: string[]; modes: ModeMap; total: number }> {
  const skipped: string[] = [];
  const modes: ModeMap = {};
  const dirs = new Set<string>();
  let total = 0;
  for (const path of files) {
    const info = await lstat(absBytes(path)).catch(() => null);
    if (!info || info.isDirectory()) continue;
    if (info.size > limits.maxFileBytes) skipped.push(path);
    else total += info.size;
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
  return { skipped, modes, total };
}

/** Stages the workspace into the shadow index as it is now, within the limits. */
export async function stageWorkspace({
  gitDir,
  workTree,
  git,
  ensure,
  excludes,
  limits,
}: StageContext): Promise<Staged> {
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
  const { skipped, modes, total } = await measure(files, limits, absBytes);
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
  if (skipped.length > 0) {
    await git(
      [
        "--literal-pathspecs",
        "rm",
        "-q",
        "--cached",
        "--ignore-unmatch",
        "--pathspec-from-file=-",
        "--pathspec-file-nul",
      ],
      Buffer.concat(skipped.flatMap((key) => [bytesOfKey(key), Buffer.from([0])])),
    );
  }
  await git(["add", "-A"]);
  return { type: "taken", skipped, modes, nested };
}
