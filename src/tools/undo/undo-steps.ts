// Deciding, per path of the plan, what undo does: write it back, remove it, reset its mode, or
// leave it alone (and say why).
import { displayKey, keyWithin } from "../files/index.ts";
import type { Planned } from "./undo-plan.ts";
import { shortCommand } from "./undo-report.ts";
import { currentOf, modeOf, type Step, sameContent, sameState } from "./undo-restore.ts";

/** What undo will do, what it leaves alone, and what it already knows it cannot do (by path). */
export interface Decided {
  restoreSteps: Step[];
  leftAlone: Map<string, string>;
  failed: Map<string, string>;
}

/** The step for one path, a reason to leave it alone, or null when it is already as it was. */
async function decideOne(
  root: string,
  plan: Map<string, Planned>,
  key: string,
  change: Planned,
): Promise<Step | { leaveAlone: string } | null> {
  const now = await currentOf(root, key);
  if (sameState(now, change.before)) return null;
  if (change.unsure !== undefined) {
    return {
      leaveAlone: `changed while \`${shortCommand(change.unsure)}\` ran, but that command does not name it, so it may be someone else's edit`,
    };
  }
  // A folder where the turn left nothing: the turn made it, if the turn made what is inside.
  const folderOfTurn =
    now.type === "dir" &&
    change.after?.type === "absent" &&
    [...plan.keys()].some((other) => other !== key && keyWithin(key, other));
  if (!folderOfTurn && (change.after === null || !sameContent(now, change.after))) {
    return {
      leaveAlone: `changed since turn ${change.turn} by something else; left as it is so that no later work is lost`,
    };
  }
  if (sameContent(now, change.before)) {
    // Only the mode differs: put it back unless someone changed it since the turn.
    const before = modeOf(change.before);
    const after = change.after ? modeOf(change.after) : null;
    const mode = now.type === "file" || now.type === "dir" ? now.mode : null;
    if (before === null || mode === null) return null;
    if (after !== null && after !== mode)
      return { leaveAlone: `its mode changed since turn ${change.turn}; left as it is` };
    return { type: "chmod", key, mode: before, now };
  }
  if (change.before.type === "absent")
    return { type: "remove", key, createdDirs: change.before.createdDirs, now };
  if (change.before.type === "dir") return null;
  return { type: "write", key, state: change.before, now };
}

/** What undo does for each path of the plan, in path order. */
export async function decideSteps(plan: Map<string, Planned>, root: string): Promise<Decided> {
  const leftAlone = new Map<string, string>();
  const failed = new Map<string, string>();
  const restoreSteps: Step[] = [];
  for (const [key, change] of [...plan.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const path = displayKey(key);
    if (change.before.type === "unrecorded") {
      failed.set(
        path,
        `it existed before turn ${change.turn} but the snapshot left it out (ignored by .gitignore or over the size limit); left as it is`,
      );
      continue;
    }
    try {
      const decided = await decideOne(root, plan, key, change);
      if (decided === null) continue;
      if ("leaveAlone" in decided) leftAlone.set(path, decided.leaveAlone);
      else restoreSteps.push(decided);
    } catch (error) {
      failed.set(path, (error as Error).message.replace(/\.$/, ""));
    }
  }
  return { restoreSteps, leftAlone, failed };
}
