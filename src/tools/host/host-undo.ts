import {
  changeMark,
  changesSince,
  describePreview,
  previewUndo,
  sessionDiff,
  undoWorkspace,
} from "../undo/index.ts";
import type { ChangeQueue } from "./change-queue.ts";
import type { WorkspaceToolHost } from "./host-options.ts";
import type { HostState } from "./host-state.ts";

type UndoFacade = Pick<
  WorkspaceToolHost,
  | "beginPrompt"
  | "undo"
  | "undoPreview"
  | "undoSteps"
  | "changeMark"
  | "changesSince"
  | "sessionDiff"
>;

/** The host's checkpoints and undo, each behind the changes in flight. */
export function createUndoFacade(state: HostState, queue: ChangeQueue): UndoFacade {
  const { options, env } = state;
  const { serial } = queue;
  // Where the checkpoint store is and what it covers, for reading it back.
  const store = async () => ({
    workspace: (await state.ready).root,
    checkpointDir: options.checkpointDir,
    env,
    ...(options.allowedPaths ? { allowedPaths: options.allowedPaths } : {}),
    ...(options.privatePaths ? { privatePaths: options.privatePaths } : {}),
    ...(options.snapshotLimits ? { limits: options.snapshotLimits } : {}),
  });
  const undoSteps = () => serial(async () => previewUndo(await store()));
  return {
    beginPrompt() {
      if (state.shared) state.shared.checkpoints.beginPrompt();
      else state.promptPending = true;
    },
    undo: (steps) =>
      serial(async () => {
        // A job still running would go on changing what undo restores.
        const stopped = await state.jobs.stopAll();
        const report = await undoWorkspace({
          workspace: (await state.ready).root,
          checkpointDir: options.checkpointDir,
          turns: steps,
          env,
          ...(options.allowedPaths ? { allowedPaths: options.allowedPaths } : {}),
          ...(options.privatePaths ? { privatePaths: options.privatePaths } : {}),
          ...(options.snapshotLimits ? { limits: options.snapshotLimits } : {}),
        });
        return stopped.length === 0
          ? report
          : {
              ...report,
              text: `Stopped ${stopped.map((job) => `background job ${job.id}`).join(", ")} first (it would go on changing files).\n${report.text}`,
            };
      }),
    undoPreview: async () => describePreview(await undoSteps()),
    undoSteps: () => undoSteps(),
    // Behind the changes in flight, so the last checkpoint of the run is in the log.
    changeMark: () => serial(async () => changeMark(options.checkpointDir)),
    changesSince: (mark) => serial(async () => changesSince(await store(), mark)),
    sessionDiff: () => serial(async () => sessionDiff(await store(), 0)),
  };
}
