import { join } from "node:path";
import { displayKey } from "../files/index.ts";
import {
  changedAnything,
  dropCheckpoints,
  keepOnlyUnsure,
  loadCheckpoints,
  type TurnCheckpoint,
} from "./checkpoints/index.ts";
import { applySteps, restoredOf } from "./undo-apply.ts";
import { planOf } from "./undo-plan.ts";
import type { UndoPreviewStep } from "./undo-preview.ts";
import { describe, limitsOf, shortCommand, type UndoReport } from "./undo-report.ts";
import { currentOf, type RestoreContext } from "./undo-restore.ts";
import { decideSteps } from "./undo-steps.ts";
import { openStore, type UndoOptions } from "./undo-store.ts";

export type { UndoAction, UndoReport } from "./undo-report.ts";
export type { UndoOptions } from "./undo-store.ts";

/** One step undo can take: the checkpoints of one user prompt (or one turn, in older logs). */
interface UndoStep {
  prompt: number | null;
  checkpoints: TurnCheckpoint[];
}

/** Groups checkpoints into steps, oldest first. */
function stepsOf(all: TurnCheckpoint[]): UndoStep[] {
  const steps: UndoStep[] = [];
  for (const checkpoint of all) {
    const last = steps[steps.length - 1];
    if (last && checkpoint.prompt !== undefined && last.prompt === checkpoint.prompt)
      last.checkpoints.push(checkpoint);
    else steps.push({ prompt: checkpoint.prompt ?? null, checkpoints: [checkpoint] });
  }
  return steps;
}

/**
 * Files the snapshot did not hold (ignored, over the size limit) that existed when the turn's first
 * command ran and are gone now: undo cannot bring them back, and must say so rather than report
 * that nothing needed restoring.
 */
async function goneUnheld(
  selected: TurnCheckpoint[],
  root: string,
): Promise<Array<{ path: string; reason: string }>> {
  const gone: Array<{ path: string; reason: string }> = [];
  const seen = new Set<string>();
  for (const checkpoint of selected) {
    const { snapshot } = checkpoint;
    if (snapshot.type !== "taken") continue;
    const skipped = new Set(snapshot.skipped);
    for (const run of checkpoint.runs ?? []) {
      for (const entry of run.unheldChanged ?? []) {
        if (seen.has(entry)) continue;
        seen.add(entry);
        const why = skipped.has(entry) ? "over the snapshot size limit" : "ignored by .gitignore";
        gone.push({
          path: displayKey(entry),
          reason: `\`${shortCommand(run.command)}\` changed it in turn ${checkpoint.turn}; it is ${why}, so no snapshot holds its earlier content`,
        });
      }
      for (const entry of run.unheldGone ?? []) {
        const key = entry.endsWith("/") ? entry.slice(0, -1) : entry;
        if (seen.has(key)) continue;
        seen.add(key);
        if ((await currentOf(root, key)).type !== "absent") continue;
        const why = skipped.has(entry) ? "over the snapshot size limit" : "ignored by .gitignore";
        gone.push({
          path: displayKey(key),
          reason: `\`${shortCommand(run.command)}\` deleted it in turn ${checkpoint.turn}; it was ${why}, so no snapshot holds it`,
        });
      }
    }
  }
  return gone;
}

/**
 * Reverts the last `turns` steps (user prompts) from the checkpoint store on disk (so `nex undo`
 * works from a new process). A path is put back only while it still holds what the turn left there
 * and the turn surely made that change; everything else is left alone and named in the report.
 */
export async function undoWorkspace(options: UndoOptions): Promise<UndoReport> {
  // A turn that changed nothing (a command that only looked) is no step of undo; one undone but
  // for what it was not sure of is a step only when those are asked for.
  const all = (await loadCheckpoints(options.checkpointDir)).filter(
    (c) => changedAnything(c) && (c.undoneExcept === undefined || options.includeUnsure === true),
  );
  const empty = { turns: [], prompts: [], restored: [], leftAlone: [], failed: [], notes: [] };
  if (all.length === 0)
    return { ...empty, text: "Nothing to undo: no file changes were recorded in this session." };
  const steps = stepsOf(all);
  const count = Math.max(1, Math.floor(options.turns));
  const chosen = steps.slice(-count);
  const selected = chosen.flatMap((step) => step.checkpoints);
  const first = selected[0] as TurnCheckpoint;
  const { ws, shadow } = await openStore(options);
  const setAsideDir = join(
    options.checkpointDir,
    "undone",
    new Date().toISOString().replace(/[:.]/g, "-"),
  );
  const ctx: RestoreContext = {
    root: ws.root,
    shadow,
    checkpointDir: options.checkpointDir,
    setAsideDir,
  };
  const plan = await planOf(
    selected,
    shadow,
    options.checkpointDir,
    ws.root,
    options.includeUnsure === true,
  );
  const { restoreSteps, leftAlone, failed } = await decideSteps(plan, ws.root);
  const betweenNotes: string[] = [];
  for (const [key, change] of plan) {
    if (change.between !== undefined)
      betweenNotes.push(
        `${displayKey(key)} was changed by something else between turn ${change.between} and turn ${change.turn}, so undo goes back only to before turn ${change.turn} for it.`,
      );
  }
  const { done, setAsideUsed } = await applySteps(ctx, restoreSteps, failed, leftAlone);
  const restored = restoredOf(restoreSteps, done);
  const failures: UndoReport["failed"] = [...failed.entries()].map(([path, reason]) => ({
    path,
    reason,
  }));
  const limits = limitsOf(selected);
  for (const reason of limits.failed) failures.push({ path: null, reason });
  for (const gone of await goneUnheld(selected, ws.root)) failures.push(gone);
  // A step whose restore failed stays, so a second `undo` can try again; one undo never reuses it.
  const ioFailed = [...failed.keys()].some((path) =>
    restoreSteps.some((s) => displayKey(s.key) === path),
  );
  if (!ioFailed) {
    const seqs = selected.map((c) => c.seq);
    const unsure = [...plan.entries()]
      .filter(([key, change]) => change.unsure !== undefined && leftAlone.has(displayKey(key)))
      .map(([key]) => key);
    // What was left alone as not surely the turn's stays undoable with --include-unsure.
    if (unsure.length > 0) await keepOnlyUnsure(options.checkpointDir, seqs, unsure);
    else await dropCheckpoints(options.checkpointDir, seqs);
  }
  const report = {
    turns: selected.map((c) => c.turn),
    prompts: [...new Set(selected.flatMap((c) => (c.prompt !== undefined ? [c.prompt] : [])))],
    restored,
    leftAlone: [...leftAlone.entries()].map(([path, reason]) => ({ path, reason })),
    failed: failures,
    notes: [...limits.notes, ...betweenNotes],
  };
  return {
    ...report,
    text: describe(report, first, count, chosen.length, setAsideUsed ? setAsideDir : null),
  };
}

/** What each recorded step changed, newest first, without changing anything (`nex undo --list`). */
export async function previewUndo(options: Omit<UndoOptions, "turns">): Promise<UndoPreviewStep[]> {
  const all = (await loadCheckpoints(options.checkpointDir)).filter(
    (c) => changedAnything(c) && c.undoneExcept === undefined,
  );
  const { ws, shadow } = await openStore(options);
  const out: UndoPreviewStep[] = [];
  for (const step of stepsOf(all).reverse()) {
    const plan = await planOf(step.checkpoints, shadow, options.checkpointDir, ws.root);
    out.push({
      prompt: step.prompt,
      time: step.checkpoints.find((c) => c.time !== undefined)?.time ?? null,
      turns: step.checkpoints.map((c) => c.turn),
      commands: step.checkpoints.flatMap((c) => c.commands),
      paths: [...plan.entries()]
        .map(
          ([key, change]) =>
            `${displayKey(key)}${change.unsure !== undefined ? " (not surely the turn's: left alone)" : ""}`,
        )
        .sort(),
    });
  }
  return out;
}
