// Carrying out undo's steps in an order that never loses a byte: what is in the way first, then
// every write-back, then (only once everything is back) removals, then modes.
import { displayKey } from "../files/index.ts";
import type { UndoAction, UndoReport } from "./undo-report.ts";
import {
  blockerOf,
  isUnder,
  type RestoreContext,
  removeCreated,
  removeEmptyDirs,
  removeEmptyTree,
  resetMode,
  type Step,
  writeBack,
} from "./undo-restore.ts";

/** The paths undo put back, and whether anything was copied aside. */
export interface Applied {
  done: Set<string>;
  setAsideUsed: boolean;
}

/** Carries out `steps`, noting each failure in `failed` and each skipped removal in `leftAlone`. */
export async function applySteps(
  ctx: RestoreContext,
  steps: Step[],
  failed: Map<string, string>,
  leftAlone: Map<string, string>,
): Promise<Applied> {
  const root = ctx.root;
  const done = new Set<string>();
  let setAsideUsed = false;
  const attempt = async (step: Step, work: () => Promise<void>): Promise<boolean> => {
    try {
      await work();
      done.add(step.key);
      if (step.now.type !== "absent" && step.type !== "chmod") setAsideUsed = true;
      return true;
    } catch (error) {
      failed.set(displayKey(step.key), (error as Error).message.replace(/\.$/, ""));
      return false;
    }
  };
  const writes = steps.filter((s): s is Step & { type: "write" } => s.type === "write");
  const removals = steps.filter((s): s is Step & { type: "remove" } => s.type === "remove");
  const writeKeys = writes.map((s) => s.key);
  // 1. What the turn put where a folder must come back (a link, a file): removed first. A link is
  //    removed itself, never followed, and a file is copied aside before it goes.
  const inTheWay = removals.filter((s) => writeKeys.some((key) => isUnder(key, [s.key])));
  for (const step of inTheWay) await attempt(step, () => removeCreated(ctx, step.key, step.now));
  //    And a folder the turn made where a file was: its files (the turn's) go, then the folder if empty.
  for (const step of writes) {
    if (step.now.type !== "dir") continue;
    const inside = removals.filter((r) => isUnder(r.key, [step.key]) !== null);
    for (const r of inside) await attempt(r, () => removeCreated(ctx, r.key, r.now));
    if (await removeEmptyTree(root, step.key)) step.now = { type: "absent" };
  }
  // 2. Everything undo writes back, each into a temporary name renamed into place.
  let writesFailed = false;
  for (const step of writes) {
    const blocker = await blockerOf(root, step.key);
    if (blocker !== null && !done.has(blocker)) {
      failed.set(
        displayKey(step.key),
        `${displayKey(blocker)} is a link or a file now where its folder was, and undo is not sure the turn put it there`,
      );
      writesFailed = true;
      continue;
    }
    if (!(await attempt(step, () => writeBack(ctx, step)))) writesFailed = true;
  }
  // 3. Only once everything is back: what the turn created goes (copied aside first).
  for (const step of removals) {
    if (done.has(step.key)) continue;
    if (writesFailed) {
      leftAlone.set(
        displayKey(step.key),
        "not removed because restoring another file failed; nothing is deleted until everything is back",
      );
      continue;
    }
    await attempt(step, () => removeCreated(ctx, step.key, step.now));
  }
  if (!writesFailed)
    for (const step of removals)
      if (done.has(step.key)) await removeEmptyDirs(root, step.createdDirs);
  // 4. Modes last, folders after their files.
  const chmods = steps.filter((s): s is Step & { type: "chmod" } => s.type === "chmod");
  for (const step of chmods.sort(
    (a, b) => Number(a.key.endsWith("/")) - Number(b.key.endsWith("/")),
  ))
    await attempt(step, () => resetMode(root, step.key, step.mode));
  return { done, setAsideUsed };
}

/** What undo put back, by path, for the report. */
export function restoredOf(steps: Step[], done: Set<string>): UndoReport["restored"] {
  const restored: UndoReport["restored"] = [];
  for (const step of steps) {
    if (!done.has(step.key)) continue;
    const path = displayKey(step.key.endsWith("/") ? step.key.slice(0, -1) : step.key);
    const action: UndoAction =
      step.type === "chmod"
        ? "mode restored"
        : step.type === "remove"
          ? "deleted again"
          : step.now.type === "absent"
            ? "re-created"
            : "modified";
    restored.push({ path, action });
  }
  return restored.sort((a, b) => (a.path < b.path ? -1 : 1));
}
