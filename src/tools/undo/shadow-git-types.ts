// The shapes a shadow-git snapshot, tree and coverage answer take.

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
