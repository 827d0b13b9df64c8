// The records of the checkpoint log, apart from the recorder that writes them and the log that
// stores them, so neither needs the other.
import type { SnapshotResult, TreeResult } from "../shadow-git.ts";

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
  /** When in the turn (its event counter) the file was first and last changed. Absent in older logs. */
  at?: number;
  lastAt?: number;
}

/**
 * One command `bash` ran, with the workspace just before and just after it. Only what changed inside
 * this window can be the command's work; what changed between windows was someone else.
 */
export interface CommandRun {
  command: string;
  /** The turn's event counter when it started. */
  at: number;
  /** A commit or tree of the workspace just before; null when none could be taken. */
  before: string | null;
  /** The tree of `before` when it is a commit, so that an unchanged workspace is seen as such. */
  beforeTree?: string;
  /** A tree of the workspace just after; null when none could be taken (or it did not finish). */
  after: string | null;
  /** Blob names (sha256 under `blobs/`) of the `ModeMap`s before and after. */
  beforeModes?: string;
  afterModes?: string;
  /** Why a snapshot is missing. */
  reason?: string;
  /** Paths the snapshot could not hold (ignored, too large) that were gone after the command. */
  unheldGone?: string[];
  /** Files the snapshot could not hold whose size or change time the command changed. */
  unheldChanged?: string[];
}

/** What one mutating turn recorded before it changed anything; stored in the log `checkpoints.jsonl`. */
export interface TurnCheckpoint {
  /** Order of checkpoints in this store, across processes. */
  seq: number;
  /** The loop's turn number, for messages. */
  turn: number;
  /** The user prompt (numbered from 1 in this store) the turn answered; absent in older logs. */
  prompt?: number;
  /** Each command with the workspace around it; absent in older logs (they have only `snapshot`/`after`). */
  runs?: CommandRun[];
  /** The turn's event counter: orders file edits and commands. */
  events?: number;
  /** When the turn first changed something (ISO time); absent in older logs. */
  time?: string;
  /** Set once undone but for these paths (left alone as not surely the turn's); read from the log. */
  undoneExcept?: string[];
  /** The workspace before the turn's first command (file tools' changes have before-images instead). */
  snapshot: SnapshotResult;
  /** The workspace after the turn's latest change, so undo reverts only what the turn did. */
  after: TreeResult | null;
  files: BeforeImage[];
  /** Commands `bash` ran in this turn. */
  commands: string[];
}
