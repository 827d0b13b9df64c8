// Checkpoints of each turn in a shadow git, and undoing a turn.
export {
  type CheckpointRecorder,
  createCheckpointRecorder,
  lastChangedSession,
  SnapshotRequired,
} from "./checkpoints/index.ts";
export type { Coverage, SnapshotLimits } from "./shadow-git.ts";
export { describePreview, type UndoPreviewStep } from "./undo-preview.ts";

import { readCheckpointLog } from "./checkpoints/index.ts";
import type { UndoOptions, UndoReport } from "./undo.ts";
import type { UndoPreviewStep } from "./undo-preview.ts";

export type { UndoOptions, UndoReport } from "./undo.ts";

// Undo's machinery loads when undo is asked for: most sessions never undo, and every module
// loaded is start-up time.

/** Restores the workspace to before the last `turns` steps (see `undo.ts`). */
export async function undoWorkspace(options: UndoOptions): Promise<UndoReport> {
  return (await import("./undo.ts")).undoWorkspace(options);
}

/** What each recorded step changed, newest first, without changing anything. */
export async function previewUndo(options: Omit<UndoOptions, "turns">): Promise<UndoPreviewStep[]> {
  return (await import("./undo.ts")).previewUndo(options);
}

export type { RunChanges } from "./run-changes.ts";

/** `/diff`: the changes since checkpoint `mark` as a readable diff, per file (see `session-diff.ts`). */
export async function sessionDiff(
  options: Omit<UndoOptions, "turns">,
  mark: number,
): Promise<string> {
  if (changeMark(options.checkpointDir) <= mark) return "No file changes in this session yet.";
  return (await import("./session-diff.ts")).sessionDiff(options, mark, {
    fileLines: 80,
    totalLines: 400,
  });
}

/** Where a run's checkpoints begin (the log's last sequence number), for `changesSince` at its end. */
export function changeMark(checkpointDir: string): number {
  return readCheckpointLog(checkpointDir).lastSeq;
}

/** The paths whose bytes or mode differ from before the checkpoints after `mark` (see `run-changes.ts`). */
export async function changesSince(
  options: Omit<UndoOptions, "turns">,
  mark: number,
): Promise<import("./run-changes.ts").RunChanges> {
  // A run that changed nothing left no checkpoint: nothing to load or compare.
  if (changeMark(options.checkpointDir) <= mark) return { paths: [], unmeasured: [] };
  return (await import("./run-changes.ts")).changesSince(options, mark);
}
