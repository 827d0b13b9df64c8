// Composing the changes of several checkpoints into one plan: per path, the state before the
// oldest turn that surely changed it, and the state the newest left.

import { sha256 } from "../files/index.ts";
import type { TurnCheckpoint } from "./checkpoints/index.ts";
import type { ShadowGit } from "./shadow-git.ts";
import { changesOf, type State, type TurnChange } from "./turn-changes.ts";

/** A path's change over several turns: the oldest turn's `before`, the newest turn's `after`. */
export interface Planned {
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
