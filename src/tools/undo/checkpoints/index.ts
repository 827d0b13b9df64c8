// A turn's checkpoint: what each file was before the turn changed it (blobs in the shadow git, or
// a file's image when it is too large or not in a repository), and the log that orders them.
export { readCheckpointLog } from "./checkpoint-log.ts";
export {
  type BeforeImage,
  type CheckpointRecorder,
  type CommandRun,
  changedAnything,
  createCheckpointRecorder,
  dropCheckpoints,
  keepOnlyUnsure,
  lastChangedSession,
  loadCheckpoints,
  readBlob,
  readModes,
  SnapshotRequired,
  shadowFor,
  type TurnCheckpoint,
} from "./checkpoints.ts";
