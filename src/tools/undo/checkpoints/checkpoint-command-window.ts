// What a command records in a checkpoint: the workspace just before it (a shadow-git snapshot or
// tree) and just after it, one window shared by the calls that run beside each other.
import { lstatSync, type Stats } from "node:fs";
import { bytesOfKey, type Workspace } from "../../files/index.ts";
import type { ShadowGit } from "../shadow-git.ts";
import { saveModes } from "./checkpoint-blobs.ts";
import { saveCheckpoint, tick } from "./checkpoint-file-images.ts";
import type { CommandRun, TurnCheckpoint } from "./checkpoint-record.ts";

/** A command was not run because undo could not have repaired it. */
export class SnapshotRequired extends Error {}

/** Opens and closes the window around each command of a turn. */
export interface CommandWindow {
  /** Before a command runs: takes the "before" (or joins the window already open). */
  open(checkpoint: TurnCheckpoint, turn: number, command: string): Promise<void>;
  /** After a change ends: the last call of the window takes the "after". */
  close(checkpoint: TurnCheckpoint | undefined): Promise<void>;
}

/** What the window needs from the recorder. */
export interface CommandWindowOptions {
  checkpointDir: string;
  workspace: Workspace;
  shadow: ShadowGit;
  redact?: (text: string) => string;
  requireSnapshot?: () => boolean;
}

/** Size and change time of each file the snapshot leaves out (a folder: only that it is there). */
function unheldStamps(root: string, checkpoint: TurnCheckpoint): Map<string, string> {
  const stamps = new Map<string, string>();
  if (checkpoint.snapshot.type !== "taken") return stamps;
  for (const key of [...(checkpoint.snapshot.ignored ?? []), ...checkpoint.snapshot.skipped]) {
    const path = key.endsWith("/") ? key.slice(0, -1) : key;
    let info: Stats | undefined;
    try {
      info = lstatSync(Buffer.concat([Buffer.from(`${root}/`), bytesOfKey(path)]), {
        throwIfNoEntry: false,
      });
    } catch {}
    if (!info) continue;
    // A folder's own times change with its entries, not with its files' content: only presence.
    stamps.set(key, info.isDirectory() ? "dir" : `${info.size}:${info.mtimeMs}:${info.ctimeMs}`);
  }
  return stamps;
}

/** The workspace just before a command: the turn's snapshot for its first, else a tree. */
async function takeBefore(
  { checkpointDir, shadow }: CommandWindowOptions,
  checkpoint: TurnCheckpoint,
  turn: number,
  run: CommandRun,
): Promise<void> {
  if (checkpoint.commands.length === 0) {
    checkpoint.snapshot = await shadow.snapshot(`before turn ${turn}`);
    if (checkpoint.snapshot.type === "taken") {
      run.before = checkpoint.snapshot.commit;
      if (checkpoint.snapshot.tree) run.beforeTree = checkpoint.snapshot.tree;
      const blob = await saveModes(checkpointDir, checkpoint.snapshot.modes);
      if (blob) run.beforeModes = blob;
      delete checkpoint.snapshot.modes;
    } else run.reason = checkpoint.snapshot.reason;
  } else {
    const tree = await shadow.currentTree();
    if (tree.type === "taken") {
      run.before = tree.tree;
      const blob = await saveModes(checkpointDir, tree.modes);
      if (blob) run.beforeModes = blob;
    } else run.reason = tree.reason;
  }
}

/** The window of one recorder (one store): at most one is open at a time. */
export function createCommandWindow(options: CommandWindowOptions): CommandWindow {
  const { checkpointDir, workspace, shadow } = options;
  // The command whose "after" is still to be taken, and how many calls share its window.
  let pendingRun: CommandRun | null = null;
  let sharing = 0;
  // Size and change time of each file the snapshot leaves out, just before the pending command.
  let stampsBefore = new Map<string, string>();
  return {
    async open(checkpoint, turn, command) {
      // The log is kept on disk: a command that names the key is stored with the key redacted.
      const shown = options.redact ? options.redact(command) : command;
      if (pendingRun && checkpoint.runs?.includes(pendingRun)) {
        // A call running beside the pending one (`Tool.parallel`): one window holds both, from
        // before the first to after the last, so whatever either changed is undoable.
        pendingRun.command = `${pendingRun.command}; ${shown}`;
        checkpoint.commands.push(shown);
        sharing++;
        saveCheckpoint(checkpointDir, checkpoint);
        return;
      }
      const run: CommandRun = { command: shown, at: tick(checkpoint), before: null, after: null };
      // The workspace just before this command, so that what someone else changed since the
      // turn's previous change is not taken for this command's work.
      await takeBefore(options, checkpoint, turn, run);
      if (run.before === null && options.requireSnapshot?.()) {
        saveCheckpoint(checkpointDir, checkpoint);
        throw new SnapshotRequired(
          `no snapshot of the workspace could be taken (${run.reason}), so undo could not repair what the command changes`,
        );
      }
      checkpoint.commands.push(shown);
      checkpoint.runs = [...(checkpoint.runs ?? []), run];
      pendingRun = run;
      sharing = 1;
      stampsBefore = unheldStamps(workspace.root, checkpoint);
      saveCheckpoint(checkpointDir, checkpoint);
    },
    async close(checkpoint) {
      // Another call of the window is still running: the last one to end takes the "after".
      if (pendingRun && sharing > 1) {
        sharing--;
        return;
      }
      const run = pendingRun;
      pendingRun = null;
      sharing = 0;
      if (!checkpoint || !run || run.before === null) return;
      // The snapshot cannot see what happens to files it leaves out; their disappearance at least
      // is noticed, so that undo can say it cannot bring them back.
      const stamps = unheldStamps(workspace.root, checkpoint);
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
        const blob = await saveModes(checkpointDir, tree.modes);
        if (blob) run.afterModes = blob;
        checkpoint.after = { type: "taken", tree: tree.tree, skipped: tree.skipped };
      } else {
        run.reason = tree.reason;
        checkpoint.after = tree;
      }
      saveCheckpoint(checkpointDir, checkpoint);
    },
  };
}
