// Checkpoints of each turn in a shadow git, and undoing a turn.
export {
  type CheckpointRecorder,
  createCheckpointRecorder,
  lastChangedSession,
  SnapshotRequired,
} from "./checkpoints.ts";
export type { Coverage, SnapshotLimits } from "./shadow-git.ts";
export { describePreview, type UndoPreviewStep } from "./undo-preview.ts";

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
