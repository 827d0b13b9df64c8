import { join } from "node:path";
import { createWorkspace, displayKey, keyWithin, sha256 } from "../files/index.ts";
import {
  changedAnything,
  dropCheckpoints,
  keepOnlyUnsure,
  loadCheckpoints,
  shadowFor,
  type TurnCheckpoint,
} from "./checkpoints.ts";
import type { ShadowGit, SnapshotLimits } from "./shadow-git.ts";
import { changesOf, type State, type TurnChange } from "./turn-changes.ts";
import type { UndoPreviewStep } from "./undo-preview.ts";
import {
  describe,
  limitsOf,
  shortCommand,
  type UndoAction,
  type UndoReport,
} from "./undo-report.ts";
import {
  blockerOf,
  currentOf,
  isUnder,
  modeOf,
  type RestoreContext,
  removeCreated,
  removeEmptyDirs,
  removeEmptyTree,
  resetMode,
  type Step,
  sameContent,
  sameState,
  writeBack,
} from "./undo-restore.ts";

export type { UndoAction, UndoReport } from "./undo-report.ts";

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

/** A path's change over several turns: the oldest turn's `before`, the newest turn's `after`. */
interface Planned {
  before: State;
  after: State | null;
  turn: number;
  unsure?: string;
  /** Why the chain of turns broke (someone changed it between two of them). */
  between?: number;
}

async function identity(state: State | null, shadow: ShadowGit): Promise<string> {
  if (state === null) return "unknown";
  switch (state.type) {
    case "absent":
      return "absent";
    case "unrecorded":
      return "unrecorded";
    case "dir":
      return `dir:${state.mode}`;
    case "image":
      return state.blob;
    case "hash":
      return state.sha256;
    case "tree":
      if (state.entry.mode === "120000") return `link:${state.entry.sha}`;
      return sha256(await shadow.readBlob(state.entry.sha));
  }
}

/** The changes of the selected checkpoints, composed newest first. */
export async function planOf(
  selected: TurnCheckpoint[],
  shadow: ShadowGit,
  checkpointDir: string,
  root: string,
  trustUnnamed = false,
): Promise<Map<string, Planned>> {
  const plan = new Map<string, Planned>();
  const stopped = new Set<string>();
  for (const checkpoint of [...selected].reverse()) {
    const changes: Map<string, TurnChange> = await changesOf(
      checkpoint,
      shadow,
      checkpointDir,
      root,
      trustUnnamed,
    );
    if (checkpoint.undoneExcept) {
      const keep = new Set(checkpoint.undoneExcept);
      for (const key of [...changes.keys()]) if (!keep.has(key)) changes.delete(key);
    }
    for (const [key, change] of changes) {
      if (stopped.has(key)) continue;
      const later = plan.get(key);
      if (!later) {
        plan.set(key, { ...change, turn: checkpoint.turn });
        continue;
      }
      if (later.unsure !== undefined) continue;
      // An older turn applies only if it left what the newer one found: else someone changed the
      // file between the two turns, and undo stops at the newer turn's `before` to keep that work.
      if (
        change.unsure === undefined &&
        (await identity(change.after, shadow)) === (await identity(later.before, shadow))
      ) {
        later.before = change.before;
        later.turn = checkpoint.turn;
      } else {
        later.between = checkpoint.turn;
        stopped.add(key);
      }
    }
  }
  return plan;
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
      const now = await currentOf(ws.root, key);
      if (sameState(now, change.before)) continue;
      if (change.unsure !== undefined) {
        leftAlone.set(
          path,
          `changed while \`${shortCommand(change.unsure)}\` ran, but that command does not name it, so it may be someone else's edit`,
        );
        continue;
      }
      // A folder where the turn left nothing: the turn made it, if the turn made what is inside.
      const folderOfTurn =
        now.type === "dir" &&
        change.after?.type === "absent" &&
        [...plan.keys()].some((other) => other !== key && keyWithin(key, other));
      if (!folderOfTurn && (change.after === null || !sameContent(now, change.after))) {
        leftAlone.set(
          path,
          `changed since turn ${change.turn} by something else; left as it is so that no later work is lost`,
        );
        continue;
      }
      if (sameContent(now, change.before)) {
        // Only the mode differs: put it back unless someone changed it since the turn.
        const before = modeOf(change.before);
        const after = change.after ? modeOf(change.after) : null;
        const mode = now.type === "file" || now.type === "dir" ? now.mode : null;
        if (before === null || mode === null) continue;
        if (after !== null && after !== mode) {
          leftAlone.set(path, `its mode changed since turn ${change.turn}; left as it is`);
          continue;
        }
        restoreSteps.push({ type: "chmod", key, mode: before, now });
        continue;
      }
      if (change.before.type === "absent")
        restoreSteps.push({ type: "remove", key, createdDirs: change.before.createdDirs, now });
      else if (change.before.type === "dir") continue;
      else restoreSteps.push({ type: "write", key, state: change.before, now });
    } catch (error) {
      failed.set(path, (error as Error).message.replace(/\.$/, ""));
    }
  }
  const betweenNotes: string[] = [];
  for (const [key, change] of plan) {
    if (change.between !== undefined)
      betweenNotes.push(
        `${displayKey(key)} was changed by something else between turn ${change.between} and turn ${change.turn}, so undo goes back only to before turn ${change.turn} for it.`,
      );
  }

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
  const writes = restoreSteps.filter((s): s is Step & { type: "write" } => s.type === "write");
  const removals = restoreSteps.filter((s): s is Step & { type: "remove" } => s.type === "remove");
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
    if (await removeEmptyTree(ws.root, step.key)) step.now = { type: "absent" };
  }
  // 2. Everything undo writes back, each into a temporary name renamed into place.
  let writesFailed = false;
  for (const step of writes) {
    const blocker = await blockerOf(ws.root, step.key);
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
      if (done.has(step.key)) await removeEmptyDirs(ws.root, step.createdDirs);
  // 4. Modes last, folders after their files.
  const chmods = restoreSteps.filter((s): s is Step & { type: "chmod" } => s.type === "chmod");
  for (const step of chmods.sort(
    (a, b) => Number(a.key.endsWith("/")) - Number(b.key.endsWith("/")),
  ))
    await attempt(step, () => resetMode(ws.root, step.key, step.mode));

  const restored: UndoReport["restored"] = [];
  for (const step of restoreSteps) {
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
  restored.sort((a, b) => (a.path < b.path ? -1 : 1));
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
