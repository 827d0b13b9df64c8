import { lstat, mkdir, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { formatCount } from "../../protocol/index.ts";
import { bytesOfKey, climbsOut, keyOfBytes, parentKey, splitNul } from "../files/index.ts";

// Loaded on first use rather than at start-up: most sessions start no process for a while, if ever.
const childProcess = () => process.getBuiltinModule("node:child_process");

/** Limits past which a workspace snapshot is skipped (whole) or leaves files out (each). */
export interface SnapshotLimits {
  /** More files than this (not ignored): no snapshot. */
  maxFiles: number;
  /** Files larger than this are left out of snapshots. */
  maxFileBytes: number;
  /** More bytes in total than this: no snapshot. */
  maxTotalBytes: number;
}

/** A snapshot taken, or why none could be. */
export type SnapshotResult =
  | {
      type: "taken";
      commit: string;
      /** The commit's tree (absent in older logs). */
      tree?: string;
      skipped: string[];
      /** File and directory (`dir/`) modes git cannot hold (see `ModeMap`). Absent in older logs. */
      modes?: ModeMap;
      /**
       * Files and directories (ending in `/`) that existed but were ignored, so the snapshot cannot
       * restore them; null when there were too many to list. Absent in older logs.
       */
      ignored?: string[] | null;
    }
  | { type: "unavailable"; reason: string };

/** A tree of the workspace as it is now, built in the shadow index, for comparing with a snapshot. */
export type TreeResult =
  | { type: "taken"; tree: string; skipped: string[]; modes?: ModeMap }
  | { type: "unavailable"; reason: string };

/**
 * Permission bits git does not keep: git stores a file as 644 or 755 only, so a 0600 key or a
 * `chmod 777` would be lost. Holds every file whose mode is not the one git implies, and every
 * directory (key ending in `/`) not 0755.
 */
export type ModeMap = Record<string, number>;

/** The mode git implies for a file entry. */
export function impliedMode(gitMode: string): number {
  return gitMode === "100755" ? 0o755 : 0o644;
}

/** One entry of a snapshot tree. */
export interface TreeEntry {
  mode: string;
  sha: string;
}

/** A difference between a snapshot and the workspace now. */
export interface TreeChange {
  /** A: created since the snapshot; D: deleted since; M/T: changed since. */
  status: string;
  path: string;
}

/** What a snapshot taken now would leave out, so undo could not restore it. */
export type Coverage =
  | {
      type: "partial";
      /** Ignored files and directories (ending in `/`); null when too many to list. */
      ignored: string[] | null;
      /** Files over the size limit. */
      skipped: string[];
      /** Nested repositories (their files are not in the snapshot). */
      nested: string[];
    }
  | { type: "unavailable"; reason: string };

/** A private git repository whose work tree is the user's workspace; it never touches the user's `.git`. */
export interface ShadowGit {
  snapshot(message: string): Promise<SnapshotResult>;
  coverage(): Promise<Coverage>;
  currentTree(): Promise<TreeResult>;
  changes(commit: string, tree: string): Promise<TreeChange[]>;
  listTree(commit: string): Promise<Map<string, TreeEntry>>;
  readBlob(sha: string): Promise<Buffer>;
}

/** Where and how the shadow repository runs. */
export interface ShadowGitOptions {
  gitDir: string;
  workTree: string;
  /** More directories (absolute) that snapshots leave out: nex's own data kept in the workspace. */
  excludeDirs?: readonly string[];
  env: Record<string, string | undefined>;
  limits: SnapshotLimits;
}

const EXCLUDES = ["/.git", ".*.nex-*.tmp", ".*.nex-parts", ".*.nex-*.parts"];
// Highest-precedence attributes: no end-of-line conversion or filter, so blobs are the exact bytes.
const ATTRIBUTES = "* -text -filter -ident -diff !eol !working-tree-encoding\n";

class GitMissing extends Error {}

// More ignored entries than this are not recorded: undo then deletes nothing the turn seemed to create.
const MAX_IGNORED = 20_000;

function escapeExclude(path: string): string {
  return `/${path.replace(/[\\*?[\]!#\s]/g, (c) => `\\${c}`)}`;
}

function escapeExcludeBytes(key: string): Buffer {
  const out: number[] = [0x2f];
  for (const byte of bytesOfKey(key)) {
    if ("\\*?[]!# \t\n\r".includes(String.fromCharCode(byte))) out.push(0x5c);
    out.push(byte);
  }
  return Buffer.from(out);
}

/** Opens (lazily creating) the shadow repository. */
export function createShadowGit({
  gitDir,
  workTree,
  env,
  limits,
  excludeDirs = [],
}: ShadowGitOptions): ShadowGit {
  // A checkpoint directory (or any of nex's data) placed inside the workspace must not snapshot itself:
  // undo would then rewind the journal it is reading.
  const inside = [dirname(gitDir), ...excludeDirs]
    .map((dir) => relative(workTree, dir))
    .filter((rel) => rel && !climbsOut(rel));
  const excludes = [...EXCLUDES, ...new Set(inside)].map((rel, i) =>
    i < EXCLUDES.length ? rel : escapeExclude(rel),
  );
  const gitEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !key.startsWith("GIT_")) gitEnv[key] = value;
  }
  Object.assign(gitEnv, {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "nex",
    GIT_AUTHOR_EMAIL: "nex@localhost",
    GIT_COMMITTER_NAME: "nex",
    GIT_COMMITTER_EMAIL: "nex@localhost",
    GIT_TERMINAL_PROMPT: "0",
    LC_ALL: "C",
  });

  const git = (args: string[], input?: string | Buffer): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const child = childProcess().execFile(
        "git",
        [
          `--git-dir=${gitDir}`,
          `--work-tree=${workTree}`,
          "-c",
          "core.autocrlf=false",
          "-c",
          "core.safecrlf=false",
          "-c",
          "core.fsmonitor=false",
          "-c",
          "core.hooksPath=/dev/null",
          "-c",
          "gc.auto=0",
          "-c",
          "advice.addEmbeddedRepo=false",
          ...args,
        ],
        { cwd: workTree, env: gitEnv, encoding: "buffer", maxBuffer: 1 << 30 },
        (error, stdout, stderr) => {
          if (error) {
            if ((error as { code?: unknown }).code === "ENOENT")
              reject(new GitMissing("git is not installed"));
            else
              reject(
                new Error(`git ${args[0]} failed: ${stderr.toString().trim() || error.message}`),
              );
            return;
          }
          resolve(stdout);
        },
      );
      if (input !== undefined) child.stdin?.end(input);
    });

  let ready: Promise<void> | null = null;
  const ensure = (): Promise<void> => {
    ready ??= (async () => {
      await mkdir(gitDir, { recursive: true });
      await git(["init", "-q", "--template="]);
      await mkdir(join(gitDir, "info"), { recursive: true });
      await writeFile(join(gitDir, "info", "attributes"), ATTRIBUTES);
    })().catch((error: unknown) => {
      ready = null;
      throw error;
    });
    return ready;
  };

  // Stages the workspace into the shadow index as it is now, within the limits.
  const rootBytes = Buffer.from(workTree, "utf8");
  const absBytes = (key: string): Buffer =>
    key === "." ? rootBytes : Buffer.concat([rootBytes, Buffer.from("/"), bytesOfKey(key)]);
  const stage = async (): Promise<
    | { type: "taken"; skipped: string[]; modes: ModeMap; nested: string[] }
    | { type: "unavailable"; reason: string }
  > => {
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
  };

  const guarded = async <T>(
    work: () => Promise<T>,
  ): Promise<T | { type: "unavailable"; reason: string }> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof GitMissing)
        return { type: "unavailable", reason: "git is not installed" };
      return { type: "unavailable", reason: (error as Error).message };
    }
  };

  let lastSnapshot: string | null = null;
  const listIgnored = async (): Promise<string[]> =>
    splitNul(
      await git(["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]),
    );

  return {
    coverage: () =>
      guarded(async (): Promise<Coverage> => {
        const staged = await stage();
        if (staged.type === "unavailable") return staged;
        // Files over the size limit are excluded too; they are named as such, not as ignored.
        const tooBig = new Set(staged.skipped);
        const ignored = (await listIgnored()).filter((key) => !tooBig.has(key));
        const nested = [...staged.nested];
        const index = await git(["ls-files", "-z", "-s"]);
        let start = 0;
        while (start < index.length) {
          let end = index.indexOf(0, start);
          if (end < 0) end = index.length;
          const line = index.subarray(start, end);
          start = end + 1;
          const tab = line.indexOf(0x09);
          if (tab > 0 && line.subarray(0, 7).toString("latin1") === "160000 ")
            nested.push(keyOfBytes(line.subarray(tab + 1)));
        }
        return {
          type: "partial",
          ignored: ignored.length > MAX_IGNORED ? null : ignored,
          skipped: staged.skipped,
          nested,
        };
      }),
    snapshot: (message) =>
      guarded(async (): Promise<SnapshotResult> => {
        const staged = await stage();
        if (staged.type === "unavailable") return staged;
        const tree = (await git(["write-tree"])).toString().trim();
        // Only this snapshot moves the ref: git is asked once, then the last commit is the parent.
        const parent =
          lastSnapshot ??
          (await git(["for-each-ref", "--format=%(objectname)", "refs/heads/snapshots"]))
            .toString()
            .trim();
        const commit = (
          await git(["commit-tree", tree, ...(parent ? ["-p", parent] : []), "-m", message])
        )
          .toString()
          .trim();
        await git(["update-ref", "refs/heads/snapshots", commit]);
        lastSnapshot = commit;
        // Ignored directories are listed once, not file by file (node_modules holds many).
        const ignored = await listIgnored();
        return {
          type: "taken",
          commit,
          tree,
          skipped: staged.skipped,
          ignored: ignored.length > MAX_IGNORED ? null : ignored,
          modes: staged.modes,
        };
      }),
    currentTree: () =>
      guarded(async (): Promise<TreeResult> => {
        const staged = await stage();
        if (staged.type === "unavailable") return staged;
        return {
          type: "taken",
          tree: (await git(["write-tree"])).toString().trim(),
          skipped: staged.skipped,
          modes: staged.modes,
        };
      }),
    async changes(commit, tree) {
      const out = await git([
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        "--name-status",
        commit,
        tree,
      ]);
      const parts = splitNul(out);
      const changes: TreeChange[] = [];
      for (let i = 0; i + 1 < parts.length; i += 2) {
        changes.push({ status: parts[i] ?? "", path: parts[i + 1] ?? "" });
      }
      return changes;
    },
    async listTree(commit) {
      const out = await git(["ls-tree", "-r", "-z", "--full-tree", commit]);
      const entries = new Map<string, TreeEntry>();
      let start = 0;
      while (start < out.length) {
        let end = out.indexOf(0, start);
        if (end < 0) end = out.length;
        const line = out.subarray(start, end);
        start = end + 1;
        const tab = line.indexOf(0x09);
        if (tab < 0) continue;
        const match = /^(\d+) (\w+) (\w+)$/.exec(line.subarray(0, tab).toString("latin1"));
        if (match?.[1] && match[3])
          entries.set(keyOfBytes(line.subarray(tab + 1)), { mode: match[1], sha: match[3] });
      }
      return entries;
    },
    readBlob: (sha) => git(["cat-file", "blob", sha]),
  };
}
