import { existsSync, lstatSync, mkdirSync, readFileSync, type Stats } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { atomicWrite, SYNC_WRITE_BYTES, syncDirectory } from "./atomic-write.ts";
import { appendCheckpointLog, readCheckpointLog } from "./checkpoint-log.ts";
import { sha256 } from "./ledger.ts";
import {
  createShadowGit,
  type ShadowGit,
  type SnapshotLimits,
  type SnapshotResult,
  type TreeResult,
} from "./shadow-git.ts";
import type { Workspace } from "./workspace.ts";

/** A file's state before a turn first changed it. */
export interface BeforeImage {
  /** Relative to the workspace root when inside it, else absolute. */
  path: string;
  existed: boolean;
  /** sha256 of the saved content, under `blobs/`. */
  blob?: string;
  mode?: number;
  /** Directories the change created (relative like `path`), deepest last; undo removes them when empty. */
  createdDirs?: string[];
  /** sha256 of what nex last wrote there in this turn; undo restores only while the file still holds it. */
  afterHash?: string;
  /**
   * True when saved after the turn's first command: then it may hold what that command did, and the
   * snapshot, where it has the file, knows the state before the turn better. Absent in older logs.
   */
  afterSnapshot?: boolean;
}

/** What one mutating turn recorded before it changed anything; stored in the log `checkpoints.jsonl`. */
export interface TurnCheckpoint {
  /** Order of checkpoints in this store, across processes. */
  seq: number;
  /** The loop's turn number, for messages. */
  turn: number;
  /** The workspace before the turn's first command (file tools' changes have before-images instead). */
  snapshot: SnapshotResult;
  /** The workspace after the turn's latest change, so undo reverts only what the turn did. */
  after: TreeResult | null;
  files: BeforeImage[];
  /** Commands `bash` ran in this turn. */
  commands: string[];
}

/** What the tools call before they change the workspace. Both throw when the checkpoint cannot be saved. */
export interface CheckpointRecorder {
  /** Before a file tool changes `abs`: snapshots on the turn's first mutation and saves the before-image. */
  beforeEdit(turn: number, abs: string): Promise<void>;
  /** Before `bash` runs: snapshots on the turn's first mutation and notes the command. */
  beforeExec(turn: number, command: string): Promise<void>;
  /** After a file tool wrote `abs`: notes the content (sha256) it left there. */
  afterEdit(turn: number, abs: string, hash: string): Promise<void>;
  /** After any change of the turn (even a failed one): records the workspace as the turn left it. */
  afterChange(turn: number): Promise<void>;
}

/** Where checkpoints live and how they are taken. */
export interface CheckpointOptions {
  checkpointDir: string;
  workspace: Workspace;
  env: Record<string, string | undefined>;
  limits?: Partial<SnapshotLimits>;
  /** Replaces nex's secrets in text the log keeps (a command that names the key). */
  redact?: (text: string) => string;
}

/** Defaults: a snapshot covers up to 20,000 files, each up to 5 MiB, 512 MiB in all. */
export const DEFAULT_SNAPSHOT_LIMITS: SnapshotLimits = {
  maxFiles: 20_000,
  maxFileBytes: 5 * 2 ** 20,
  maxTotalBytes: 512 * 2 ** 20,
};

/** The shadow repository of a checkpoint directory. */
export function shadowFor(options: CheckpointOptions): ShadowGit {
  return createShadowGit({
    gitDir: join(options.checkpointDir, "shadow.git"),
    workTree: options.workspace.root,
    excludeDirs: options.workspace.privatePaths,
    env: options.env,
    limits: { ...DEFAULT_SNAPSHOT_LIMITS, ...options.limits },
  });
}

/** Every checkpoint in the store, oldest first. */
export async function loadCheckpoints(checkpointDir: string): Promise<TurnCheckpoint[]> {
  return readCheckpointLog(checkpointDir).checkpoints;
}

/** Forgets checkpoints once they have been undone. */
export async function dropCheckpoints(checkpointDir: string, seqs: number[]): Promise<void> {
  if (seqs.length === 0) return;
  appendCheckpointLog(checkpointDir, { type: "dropped", seqs }, { durable: true });
}

/** Reads a saved before-image. */
export function readBlob(checkpointDir: string, blob: string): Promise<Buffer> {
  return readFile(join(checkpointDir, "blobs", blob));
}

// `throwIfNoEntry: false`: a missing path is the common answer here, and an exception costs more.
function present(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

function missingDirs(dir: string, stop: string): string[] {
  const created: string[] = [];
  let current = dir;
  while (current !== stop && current !== dirname(current)) {
    if (present(current)) break;
    created.unshift(current);
    current = dirname(current);
  }
  return created;
}

/**
 * The recorder for one host: one checkpoint per mutating turn, saved before the turn's first change.
 * The store's files are small, so they are written with synchronous calls (see `SYNC_WRITE_BYTES`).
 */
export function createCheckpointRecorder(options: CheckpointOptions): CheckpointRecorder {
  const { checkpointDir, workspace } = options;
  const blobsDir = join(checkpointDir, "blobs");
  const shadow = shadowFor(options);
  const open = new Map<number, TurnCheckpoint>();
  let queue: Promise<unknown> = Promise.resolve();

  // The whole checkpoint as it is now, durable before this returns.
  const save = (checkpoint: TurnCheckpoint): void =>
    appendCheckpointLog(checkpointDir, { type: "checkpoint", checkpoint }, { durable: true });

  let lastSeq: number | null = null;
  const checkpointFor = async (turn: number): Promise<TurnCheckpoint> => {
    const known = open.get(turn);
    if (known) return known;
    // Undone checkpoints count too: a sequence number is never used twice in a store.
    lastSeq ??= readCheckpointLog(checkpointDir).lastSeq;
    lastSeq += 1;
    // File tools keep before-images of what they change, which is all undo needs for them; the
    // workspace snapshot (a few git processes) is taken only once a command runs in the turn.
    const checkpoint: TurnCheckpoint = {
      seq: lastSeq,
      turn,
      snapshot: { type: "unavailable", reason: "no command ran in this turn" },
      after: null,
      files: [],
      commands: [],
    };
    open.set(turn, checkpoint);
    return checkpoint;
  };

  // Checkpoints of one store are taken one at a time so two calls never race on a sequence number.
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => {});
    return next;
  };

  return {
    beforeEdit: (turn, abs) =>
      serial(async () => {
        const checkpoint = await checkpointFor(turn);
        const path = workspace.display(abs);
        if (checkpoint.files.some((file) => file.path === path)) return;
        const afterSnapshot = checkpoint.commands.length > 0 ? { afterSnapshot: true } : {};
        let info: Stats | undefined;
        try {
          info = lstatSync(abs, { throwIfNoEntry: false });
        } catch {}
        if (!info) {
          const dirs = missingDirs(dirname(abs), workspace.root);
          checkpoint.files.push({
            path,
            existed: false,
            createdDirs: dirs.map((d) => workspace.display(d)),
            ...afterSnapshot,
          });
        } else {
          const bytes = info.size <= SYNC_WRITE_BYTES ? readFileSync(abs) : await readFile(abs);
          const blob = sha256(bytes);
          const blobPath = join(blobsDir, blob);
          if (!present(blobPath)) {
            if (!existsSync(blobsDir)) {
              mkdirSync(blobsDir, { recursive: true });
              // The new directory's own entry must be durable too, or its blobs could vanish with it.
              syncDirectory(checkpointDir);
            }
            // The before-image must be durable before the change: an unsynced entry fails the checkpoint.
            const { dirSyncError } = await atomicWrite(blobPath, bytes);
            if (dirSyncError) throw dirSyncError;
          }
          checkpoint.files.push({
            path,
            existed: true,
            blob,
            mode: info.mode & 0o7777,
            ...afterSnapshot,
          });
        }
        // The before-image and its record are durable (fsynced) before the tool changes anything.
        save(checkpoint);
      }),
    beforeExec: (turn, command) =>
      serial(async () => {
        const checkpoint = await checkpointFor(turn);
        if (checkpoint.commands.length === 0)
          checkpoint.snapshot = await shadow.snapshot(`before turn ${turn}`);
        checkpoint.commands.push(options.redact ? options.redact(command) : command);
        save(checkpoint);
      }),
    afterEdit: (turn, abs, hash) =>
      serial(async () => {
        const checkpoint = open.get(turn);
        const path = workspace.display(abs);
        const image = checkpoint?.files.find((file) => file.path === path);
        if (!checkpoint || !image) return;
        image.afterHash = hash;
        // The after-hash only widens what undo may do: without it, undo leaves the file alone (and
        // says so) rather than restore it. So it needs no fsync of its own: it is appended to the log
        // and reaches the disk with the kernel's writeback or with the next durable append (an
        // fdatasync flushes every earlier append). A crash before then costs the automatic undo of
        // this one change, never a byte of the user's work; nothing saved before is rewritten.
        // For the same reason a failed append is no failure of the write, which has happened.
        try {
          appendCheckpointLog(
            checkpointDir,
            { type: "after", seq: checkpoint.seq, path, afterHash: hash },
            { durable: false },
          );
        } catch {}
      }),
    afterChange: (turn) =>
      serial(async () => {
        const checkpoint = open.get(turn);
        if (checkpoint?.snapshot.type !== "taken") return;
        checkpoint.after = await shadow.currentTree();
        save(checkpoint);
      }),
  };
}
