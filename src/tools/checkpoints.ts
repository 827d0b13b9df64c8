import { appendFileSync, existsSync, lstatSync, mkdirSync, readFileSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { atomicWrite, atomicWriteSync, SYNC_WRITE_BYTES } from "./atomic-write.ts";
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
}

/** What one mutating turn recorded before it changed anything; stored as `turns/<seq>.json`. */
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
  /** How many lines of the after-hash log (`<seq>.after.jsonl`) this save already includes. */
  afterLines?: number;
}

/** One line of a checkpoint's after-hash log: what nex left at `path`. */
interface AfterLine {
  path: string;
  afterHash: string;
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
    env: options.env,
    limits: { ...DEFAULT_SNAPSHOT_LIMITS, ...options.limits },
  });
}

const turnFile = (dir: string, seq: number): string =>
  join(dir, "turns", `${String(seq).padStart(8, "0")}.json`);

const afterLog = (dir: string, seq: number): string =>
  join(dir, "turns", `${String(seq).padStart(8, "0")}.after.jsonl`);

/** Applies the after-hash lines a checkpoint's last save did not include yet. */
function withAfterLog(checkpoint: TurnCheckpoint, log: string): TurnCheckpoint {
  const lines = log.split("\n");
  for (let i = checkpoint.afterLines ?? 0; i < lines.length; i += 1) {
    let line: AfterLine;
    try {
      line = JSON.parse(lines[i] ?? "") as AfterLine;
    } catch {
      // A line torn by a crash: the file's after-state stays unknown, so undo leaves it alone.
      continue;
    }
    const image = checkpoint.files.find((file) => file.path === line.path);
    if (image && typeof line.afterHash === "string") image.afterHash = line.afterHash;
  }
  return checkpoint;
}

/** Every checkpoint in the store, oldest first. */
export async function loadCheckpoints(checkpointDir: string): Promise<TurnCheckpoint[]> {
  let names: string[];
  try {
    names = await readdir(join(checkpointDir, "turns"));
  } catch {
    return [];
  }
  const checkpoints: TurnCheckpoint[] = [];
  for (const name of names.filter((n) => /^\d+\.json$/.test(n)).sort()) {
    let checkpoint: TurnCheckpoint;
    try {
      checkpoint = JSON.parse(
        await readFile(join(checkpointDir, "turns", name), "utf8"),
      ) as TurnCheckpoint;
    } catch {
      // A checkpoint torn by a crash mid-save holds nothing that can be trusted; skip it.
      continue;
    }
    const log = await readFile(afterLog(checkpointDir, checkpoint.seq), "utf8").catch(() => "");
    checkpoints.push(withAfterLog(checkpoint, log));
  }
  return checkpoints.sort((a, b) => a.seq - b.seq);
}

/** Removes checkpoints once they have been undone. */
export async function dropCheckpoints(checkpointDir: string, seqs: number[]): Promise<void> {
  for (const seq of seqs) {
    await rm(turnFile(checkpointDir, seq), { force: true });
    await rm(afterLog(checkpointDir, seq), { force: true });
  }
}

/** Reads a saved before-image. */
export function readBlob(checkpointDir: string, blob: string): Promise<Buffer> {
  return readFile(join(checkpointDir, "blobs", blob));
}

function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
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

/** Runs `work`, creating `dir` first when the work finds it missing (the store is made lazily). */
function inDirectory<T>(dir: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT" || existsSync(dir)) throw error;
    mkdirSync(dir, { recursive: true });
    return work();
  }
}

/**
 * The recorder for one host: one checkpoint per mutating turn, saved before the turn's first change.
 * The store's files are small, so they are written with synchronous calls (see `SYNC_WRITE_BYTES`).
 */
export function createCheckpointRecorder(options: CheckpointOptions): CheckpointRecorder {
  const { checkpointDir, workspace } = options;
  const turnsDir = join(checkpointDir, "turns");
  const blobsDir = join(checkpointDir, "blobs");
  const shadow = shadowFor(options);
  const open = new Map<number, TurnCheckpoint>();
  /** Lines appended to each open checkpoint's after-hash log. */
  const afterCounts = new Map<number, number>();
  let queue: Promise<unknown> = Promise.resolve();

  const save = (checkpoint: TurnCheckpoint): void => {
    checkpoint.afterLines = afterCounts.get(checkpoint.seq) ?? 0;
    const bytes = Buffer.from(JSON.stringify(checkpoint, null, 1));
    inDirectory(turnsDir, () => atomicWriteSync(turnFile(checkpointDir, checkpoint.seq), bytes));
  };

  let lastSeq: number | null = null;
  const checkpointFor = async (turn: number): Promise<TurnCheckpoint> => {
    const known = open.get(turn);
    if (known) return known;
    lastSeq ??= (await loadCheckpoints(checkpointDir)).at(-1)?.seq ?? 0;
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
        let info: ReturnType<typeof lstatSync> | null = null;
        try {
          info = lstatSync(abs);
        } catch {}
        if (!info) {
          const dirs = missingDirs(dirname(abs), workspace.root);
          checkpoint.files.push({
            path,
            existed: false,
            createdDirs: dirs.map((d) => workspace.display(d)),
          });
        } else {
          const bytes = info.size <= SYNC_WRITE_BYTES ? readFileSync(abs) : await readFile(abs);
          const blob = sha256(bytes);
          const blobPath = join(blobsDir, blob);
          if (!present(blobPath)) {
            if (!existsSync(blobsDir)) mkdirSync(blobsDir, { recursive: true });
            await atomicWrite(blobPath, bytes);
          }
          checkpoint.files.push({ path, existed: true, blob, mode: info.mode & 0o7777 });
        }
        // The before-image and its record are durable (fsynced) before the tool changes anything.
        save(checkpoint);
      }),
    beforeExec: (turn, command) =>
      serial(async () => {
        const checkpoint = await checkpointFor(turn);
        if (checkpoint.commands.length === 0)
          checkpoint.snapshot = await shadow.snapshot(`before turn ${turn}`);
        checkpoint.commands.push(command);
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
        // says so) rather than restore it. So it needs no fsync of its own: it is appended to a log
        // beside the checkpoint, and reaches the disk with the kernel's writeback or with the
        // checkpoint's next save, which includes it. A crash before then costs the automatic undo of
        // this one change, never a byte of the user's work; the durable checkpoint is not rewritten.
        // For the same reason a failed append is no failure of the write, which has happened.
        const line: AfterLine = { path, afterHash: hash };
        try {
          appendFileSync(afterLog(checkpointDir, checkpoint.seq), `${JSON.stringify(line)}\n`);
          afterCounts.set(checkpoint.seq, (afterCounts.get(checkpoint.seq) ?? 0) + 1);
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
