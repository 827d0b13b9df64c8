// Checkpoints of each turn in a shadow git, and undoing a turn.
export {
  type CheckpointRecorder,
  createCheckpointRecorder,
  lastChangedSession,
  SnapshotRequired,
} from "./checkpoints.ts";
export type { Coverage, SnapshotLimits } from "./shadow-git.ts";
export {
  describePreview,
  previewUndo,
  type UndoOptions,
  type UndoPreviewStep,
  type UndoReport,
  undoWorkspace,
} from "./undo.ts";
