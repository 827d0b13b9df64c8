import { existsSync, lstatSync, mkdirSync, readFileSync, type Stats, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Workspace } from "../files/index.ts";
import {
  atomicWrite,
  bytesOfKey,
  SYNC_WRITE_BYTES,
  sha256,
  syncDirectory,
} from "../files/index.ts";
import { appendCheckpointLog, readCheckpointLog } from "./checkpoint-log.ts";
import type { CommandRun, TurnCheckpoint } from "./checkpoint-record.ts";
import {
  type Coverage,
  createShadowGit,
  type ModeMap,
  type ShadowGit,
  type SnapshotLimits,
} from "./shadow-git.ts";

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

/** A command was not run because undo could not have repaired it. */
export class SnapshotRequired extends Error {}

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

/** Reads a saved before-image. */
export function readBlob(checkpointDir: string, blob: string): Promise<Buffer> {
  return readFile(join(checkpointDir, "blobs", blob));
}

/** Reads a saved mode map (empty when none was saved). */
export async function readModes(checkpointDir: string, blob: string | undefined): Promise<ModeMap> {
  if (!blob) return {};
  try {
    return JSON.parse((await readBlob(checkpointDir, blob)).toString("utf8")) as ModeMap;
  } catch {
    return {};
  }
}

/** Saves bytes under their sha256 in the store's blobs, durably; returns the name. */
async function saveBlob(checkpointDir: string, bytes: Buffer): Promise<string> {
  const blobsDir = join(checkpointDir, "blobs");
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
  return blob;
}

// `throwIfNoEntry: false`: a missing path is the common answer here, and an exception costs more.
function present(path: string | Buffer): boolean {
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
  const shadow = shadowFor(options);
  const open = new Map<number, TurnCheckpoint>();
  let queue: Promise<unknown> = Promise.resolve();
  // The prompt under way; its number is given when it first changes something.
  let prompt: { number: number | null } | null = null;
  let lastPrompt: number | null = null;
  // The command whose "after" is still to be taken, and how many calls share its window.
  let pendingRun: CommandRun | null = null;
  let sharing = 0;
  // Size and change time of each file the snapshot leaves out, just before the pending command.
  let stampsBefore = new Map<string, string>();
  const unheldStamps = (checkpoint: TurnCheckpoint): Map<string, string> => {
    const stamps = new Map<string, string>();
    if (checkpoint.snapshot.type !== "taken") return stamps;
    for (const key of [...(checkpoint.snapshot.ignored ?? []), ...checkpoint.snapshot.skipped]) {
      const path = key.endsWith("/") ? key.slice(0, -1) : key;
      let info: Stats | undefined;
      try {
        info = lstatSync(Buffer.concat([Buffer.from(`${workspace.root}/`), bytesOfKey(path)]), {
          throwIfNoEntry: false,
        });
      } catch {}
      if (!info) continue;
      // A folder's own times change with its entries, not with its files' content: only presence.
      stamps.set(key, info.isDirectory() ? "dir" : `${info.size}:${info.mtimeMs}:${info.ctimeMs}`);
    }
    return stamps;
  };
  let coverage: Promise<Coverage> | null = null;
  const tick = (checkpoint: TurnCheckpoint): number => {
    checkpoint.events = (checkpoint.events ?? 0) + 1;
    return checkpoint.events;
  };
  const modesBlob = async (modes: ModeMap | undefined): Promise<string | undefined> =>
    modes && Object.keys(modes).length > 0
      ? saveBlob(checkpointDir, Buffer.from(JSON.stringify(modes)))
      : undefined;

  // The whole checkpoint as it is now, durable before this returns.
  const save = (checkpoint: TurnCheckpoint): void =>
    appendCheckpointLog(checkpointDir, { type: "checkpoint", checkpoint }, { durable: true });

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
        const checkpoint = await checkpointFor(turn);
        const path = workspace.display(abs);
        const at = tick(checkpoint);
        const known = checkpoint.files.find((file) => file.path === path);
        if (known) {
          known.lastAt = at;
          return;
        }
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
            at,
            lastAt: at,
          });
        } else {
          const bytes = info.size <= SYNC_WRITE_BYTES ? readFileSync(abs) : await readFile(abs);
          const blob = await saveBlob(checkpointDir, bytes);
          checkpoint.files.push({
            path,
            existed: true,
            blob,
            mode: info.mode & 0o7777,
            ...afterSnapshot,
            at,
            lastAt: at,
          });
        }
        // The before-image and its record are durable (fsynced) before the tool changes anything.
        save(checkpoint);
      }),
    beforeExec: (turn, command) =>
      serial(async () => {
        coverage = null;
        const checkpoint = await checkpointFor(turn);
        // The log is kept on disk: a command that names the key is stored with the key redacted.
        const shown = options.redact ? options.redact(command) : command;
        if (pendingRun && checkpoint.runs?.includes(pendingRun)) {
          // A call running beside the pending one (`Tool.parallel`): one window holds both, from
          // before the first to after the last, so whatever either changed is undoable.
          pendingRun.command = `${pendingRun.command}; ${shown}`;
          checkpoint.commands.push(shown);
          sharing++;
          save(checkpoint);
          return;
        }
        const run: CommandRun = { command: shown, at: tick(checkpoint), before: null, after: null };
        // The workspace just before this command, so that what someone else changed since the
        // turn's previous change is not taken for this command's work.
        if (checkpoint.commands.length === 0) {
          checkpoint.snapshot = await shadow.snapshot(`before turn ${turn}`);
          if (checkpoint.snapshot.type === "taken") {
            run.before = checkpoint.snapshot.commit;
            if (checkpoint.snapshot.tree) run.beforeTree = checkpoint.snapshot.tree;
            const blob = await modesBlob(checkpoint.snapshot.modes);
            if (blob) run.beforeModes = blob;
            delete checkpoint.snapshot.modes;
          } else run.reason = checkpoint.snapshot.reason;
        } else {
          const tree = await shadow.currentTree();
          if (tree.type === "taken") {
            run.before = tree.tree;
            const blob = await modesBlob(tree.modes);
            if (blob) run.beforeModes = blob;
          } else run.reason = tree.reason;
        }
        if (run.before === null && options.requireSnapshot?.()) {
          save(checkpoint);
          throw new SnapshotRequired(
            `no snapshot of the workspace could be taken (${run.reason}), so undo could not repair what the command changes`,
          );
        }
        checkpoint.commands.push(shown);
        checkpoint.runs = [...(checkpoint.runs ?? []), run];
        pendingRun = run;
        sharing = 1;
        stampsBefore = unheldStamps(checkpoint);
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
            {
              type: "after",
              seq: checkpoint.seq,
              path,
              afterHash: hash,
              ...(image.lastAt !== undefined ? { at: image.lastAt } : {}),
            },
            { durable: false },
          );
        } catch {}
      }),
    afterChange: (turn) =>
      serial(async () => {
        coverage = null;
        // Another call of the window is still running: the last one to end takes the "after".
        if (pendingRun && sharing > 1) {
          sharing--;
          return;
        }
        const checkpoint = open.get(turn);
        const run = pendingRun;
        pendingRun = null;
        sharing = 0;
        if (!checkpoint || !run || run.before === null) return;
        // The snapshot cannot see what happens to files it leaves out; their disappearance at least
        // is noticed, so that undo can say it cannot bring them back.
        const stamps = unheldStamps(checkpoint);
        const gone: string[] = [];
        const changed: string[] = [];
        for (const [key, stamp] of stampsBefore) {
          const now = stamps.get(key);
          if (now === undefined) gone.push(key);
          else if (now !== stamp) changed.push(key);
        }
        if (gone.length > 0) run.unheldGone = gone;
        if (changed.length > 0) run.unheldChanged = changed;
        const tree = await shadow.currentTree();
        if (tree.type === "taken") {
          run.after = tree.tree;
          const blob = await modesBlob(tree.modes);
          if (blob) run.afterModes = blob;
          checkpoint.after = { type: "taken", tree: tree.tree, skipped: tree.skipped };
        } else {
          run.reason = tree.reason;
          checkpoint.after = tree;
        }
        save(checkpoint);
      }),
  };
}
