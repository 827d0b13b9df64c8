import { statSync } from "node:fs";
import { join } from "node:path";
import type { Workspace } from "../../files/index.ts";
import {
  type Coverage,
  createShadowGit,
  type ShadowGit,
  type SnapshotLimits,
} from "../shadow-git.ts";
import { createCommandWindow } from "./checkpoint-command-window.ts";
import { noteAfterImage, saveBeforeImage } from "./checkpoint-file-images.ts";
import { appendCheckpointLog, readCheckpointLog } from "./checkpoint-log.ts";
import type { TurnCheckpoint } from "./checkpoint-record.ts";

export { readBlob, readModes } from "./checkpoint-blobs.ts";
export { SnapshotRequired } from "./checkpoint-command-window.ts";
export type { BeforeImage, CommandRun, TurnCheckpoint } from "./checkpoint-record.ts";

/** What the tools call before they change the workspace. Both throw when the checkpoint cannot be saved. */
export interface CheckpointRecorder {
  /** A new user prompt starts: the next checkpoints belong to it (turn numbers start again). */
  beginPrompt(): void;
  /** What a snapshot taken now would not cover (cached until the next change). */
  coverage(): Promise<Coverage>;
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
  /**
   * True while the change under way runs without a person's yes (`--yes`, an allow rule): then a
   * command whose snapshot fails is not run, since undo could not repair it.
   */
  requireSnapshot?: () => boolean;
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

/** Whether a turn changed anything: a command that left the workspace as it was (`cat`) did not. */
export function changedAnything(checkpoint: TurnCheckpoint): boolean {
  if (checkpoint.files.length > 0) return true;
  if (!checkpoint.runs) return checkpoint.commands.length > 0;
  return checkpoint.runs.some(
    (run) =>
      run.after === null ||
      run.after !== (run.beforeTree ?? run.before) ||
      run.afterModes !== run.beforeModes ||
      (run.unheldGone?.length ?? 0) > 0 ||
      (run.unheldChanged?.length ?? 0) > 0,
  );
}

/**
 * Of a workspace's sessions, the one whose newest change not yet undone is the newest (`nex undo`
 * with no session), or null when none has anything to undo.
 */
export function lastChangedSession<T extends { sessionId: string }>(
  sessions: T[],
  checkpointDirOf: (sessionId: string) => string,
): T | null {
  let best: { session: T; time: number } | null = null;
  for (const session of sessions) {
    const dir = checkpointDirOf(session.sessionId);
    const checkpoints = readCheckpointLog(dir).checkpoints.filter(
      (c) => changedAnything(c) && c.undoneExcept === undefined,
    );
    const newest = checkpoints[checkpoints.length - 1];
    if (!newest) continue;
    let time = newest.time ? Date.parse(newest.time) : Number.NaN;
    if (Number.isNaN(time)) {
      try {
        time = statSync(join(dir, "checkpoints.jsonl")).mtimeMs;
      } catch {
        time = 0;
      }
    }
    if (!best || time > best.time) best = { session, time };
  }
  return best?.session ?? null;
}

/** Marks checkpoints undone except for `keys`, which only `--include-unsure` may still revert. */
export async function keepOnlyUnsure(
  checkpointDir: string,
  seqs: number[],
  keys: string[],
): Promise<void> {
  if (seqs.length === 0) return;
  appendCheckpointLog(checkpointDir, { type: "undone_except", seqs, keys }, { durable: true });
}

/** Forgets checkpoints once they have been undone. */
export async function dropCheckpoints(checkpointDir: string, seqs: number[]): Promise<void> {
  if (seqs.length === 0) return;
  appendCheckpointLog(checkpointDir, { type: "dropped", seqs }, { durable: true });
}

/**
 * The recorder for one host: one checkpoint per mutating turn, saved before the turn's first change.
 * The store's files are small, so they are written with synchronous calls (see `SYNC_WRITE_BYTES`).
 */
export function createCheckpointRecorder(options: CheckpointOptions): CheckpointRecorder {
  const { checkpointDir, workspace } = options;
  const shadow = shadowFor(options);
  const window = createCommandWindow({ ...options, shadow });
  const open = new Map<number, TurnCheckpoint>();
  let queue: Promise<unknown> = Promise.resolve();
  // The prompt under way; its number is given when it first changes something.
  let prompt: { number: number | null } | null = null;
  let lastPrompt: number | null = null;
  let coverage: Promise<Coverage> | null = null;

  let lastSeq: number | null = null;
  const checkpointFor = async (turn: number): Promise<TurnCheckpoint> => {
    const known = open.get(turn);
    if (known) return known;
    // Undone checkpoints count too: a sequence number is never used twice in a store.
    if (lastSeq === null || lastPrompt === null) {
      const log = readCheckpointLog(checkpointDir);
      lastSeq ??= log.lastSeq;
      lastPrompt ??= log.lastPrompt;
    }
    lastSeq += 1;
    if (prompt && prompt.number === null) {
      lastPrompt += 1;
      prompt.number = lastPrompt;
    }
    // File tools keep before-images of what they change, which is all undo needs for them; the
    // workspace snapshot (a few git processes) is taken only once a command runs in the turn.
    const checkpoint: TurnCheckpoint = {
      seq: lastSeq,
      turn,
      snapshot: { type: "unavailable", reason: "no command ran in this turn" },
      after: null,
      files: [],
      commands: [],
      runs: [],
      events: 0,
      time: new Date().toISOString(),
      ...(prompt?.number ? { prompt: prompt.number } : {}),
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
    beginPrompt() {
      prompt = { number: null };
      open.clear();
    },
    coverage() {
      coverage ??= shadow.coverage();
      return coverage;
    },
    beforeEdit: (turn, abs) =>
      serial(async () => {
        coverage = null;
        await saveBeforeImage(checkpointDir, workspace, await checkpointFor(turn), abs);
      }),
    beforeExec: (turn, command) =>
      serial(async () => {
        coverage = null;
        await window.open(await checkpointFor(turn), turn, command);
      }),
    afterEdit: (turn, abs, hash) =>
      serial(async () => noteAfterImage(checkpointDir, workspace, open.get(turn), abs, hash)),
    afterChange: (turn) =>
      serial(async () => {
        coverage = null;
        await window.close(open.get(turn));
      }),
  };
}
