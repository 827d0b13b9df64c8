// What a run changed in the workspace, as paths, from the checkpoints it left: the truth an
// outcome's `files_changed` reports (a count of calls says nothing about files).
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { displayKey } from "../files/index.ts";
import { readCheckpointLog, type TurnCheckpoint } from "./checkpoints/index.ts";
import type { ShadowGit } from "./shadow-git.ts";
import { planOf } from "./undo-plan.ts";
import { currentOf, presentAt, sameState } from "./undo-restore.ts";
import { openStore, type UndoOptions } from "./undo-store.ts";

/** The paths whose bytes or mode differ from before the run, and what could not be measured. */
export interface RunChanges {
  /** Workspace paths (display form), sorted. */
  paths: string[];
  /** Commands whose changes no snapshot measured: what they did to files is not in `paths`. */
  unmeasured: string[];
}

/**
 * Every path that differs now from before the checkpoints after `mark`: a file written and put back
 * is not a change, a mode changed alone is one. Changes made while a command ran count whether or
 * not the command named the path (`unsure` is undo's caution, not doubt that the bytes differ).
 */
export async function changesSince(
  options: Omit<UndoOptions, "turns">,
  mark: number,
): Promise<RunChanges> {
  const checkpoints = readCheckpointLog(options.checkpointDir).checkpoints.filter(
    (c) => c.seq > mark && c.undoneExcept === undefined,
  );
  if (checkpoints.length === 0) return { paths: [], unmeasured: [] };
  const { ws, shadow } = await openStore(options);
  const plan = await planOf(checkpoints, shadow, options.checkpointDir, ws.root, true);
  const paths = new Set<string>();
  for (const [key, change] of plan) {
    // Folders are not files: a folder a write created is there because its file is.
    if (key.endsWith("/")) continue;
    // Nothing was there before: whether something is now is the answer, its bytes need no reading.
    const changed =
      change.before.type === "absent"
        ? presentAt(ws.root, key)
        : !sameState(await currentOf(ws.root, key), change.before);
    if (changed) paths.add(displayKey(key));
  }
  const unmeasured: string[] = [];
  for (const checkpoint of checkpoints) {
    for (const run of checkpoint.runs ?? []) {
      if (run.before === null || run.after === null) unmeasured.push(run.command);
      // Files the snapshot cannot hold (ignored, too large) that the command changed or removed.
      for (const entry of [...(run.unheldChanged ?? []), ...(run.unheldGone ?? [])]) {
        if (!entry.endsWith("/")) paths.add(displayKey(entry));
      }
    }
  }
  for (const key of await ignoredCreated(checkpoints, shadow, ws.root)) paths.add(displayKey(key));
  return { paths: [...paths].sort(), unmeasured };
}

/** How many files of a new ignored folder are named one by one; past it, the folder is named. */
const FOLDER_FILES = 1000;

/**
 * Ignored files that appeared during the run (a build's output, a log): the snapshot leaves them
 * out, so the ignored entries now are compared with those before the run's first command. Changes
 * inside an ignored folder that already existed are not seen (the folder is listed, not its files).
 */
async function ignoredCreated(
  checkpoints: TurnCheckpoint[],
  shadow: ShadowGit,
  root: string,
): Promise<string[]> {
  const first = checkpoints.find((c) => c.snapshot.type === "taken");
  const before = first?.snapshot.type === "taken" ? first.snapshot.ignored : undefined;
  if (!before) return [];
  const now = await shadow.coverage();
  if (now.type !== "partial" || now.ignored === null) return [];
  const known = new Set(before);
  const created: string[] = [];
  for (const entry of now.ignored) {
    if (known.has(entry)) continue;
    if (!entry.endsWith("/")) created.push(entry);
    else created.push(...(await filesUnder(root, entry.slice(0, -1))));
  }
  return created;
}

async function filesUnder(root: string, dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (found.length > FOLDER_FILES) return;
      const key = `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(key);
      else found.push(key);
    }
  };
  await walk(dir);
  return found.length > FOLDER_FILES ? [`${dir}/`] : found;
}
