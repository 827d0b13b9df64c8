// Where a checkpoint store is and what it covers, opened for reading: undo, its preview, `/diff`
// and a run's `files_changed` all start here (the last two without loading undo's machinery).
import { createWorkspace } from "../files/index.ts";
import { shadowFor } from "./checkpoints/index.ts";
import type { SnapshotLimits } from "./shadow-git.ts";

/** Where the checkpoints are and how many steps to undo. */
export interface UndoOptions {
  workspace: string;
  checkpointDir: string;
  /** How many of the most recent steps (user prompts that changed something) to undo (at least 1). */
  turns: number;
  allowedPaths?: string[];
  /** nex's own data directories, left out of snapshots (see ToolHostOptions.privatePaths). */
  privatePaths?: string[];
  /** Environment for git (default: this process's). */
  env?: Record<string, string | undefined>;
  limits?: Partial<SnapshotLimits>;
  /**
   * Also revert changes made while a command ran that the command does not name (they may be
   * someone else's; only the user can say).
   */
  includeUnsure?: boolean;
}

/** The workspace guard and the shadow repository of a checkpoint store, as undo and its preview read them. */
export async function openStore(options: Omit<UndoOptions, "turns">) {
  const ws = await createWorkspace(
    options.workspace,
    options.allowedPaths ?? [],
    options.privatePaths ?? [],
  );
  const shadow = shadowFor({
    checkpointDir: options.checkpointDir,
    workspace: ws,
    env: options.env ?? process.env,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  return { ws, shadow };
}
