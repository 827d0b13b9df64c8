// `/rewind` as a command: the picker where the chat has one, else the list; `/rewind N` shows the
// plan of one prompt, `/rewind N yes` does it and puts the prompt back in the input box.

import {
  describeRewindPlan,
  describeRewindPoints,
  type RewindPoint,
} from "../../runtime/history/index.ts";
import type { AgentSession } from "../../runtime/session/index.ts";
import { addEntry, type UiStore } from "../state/index.ts";

export interface RewindContext {
  session: AgentSession;
  store: UiStore;
  openRewind?(points: RewindPoint[]): void;
  setDraft?(text: string): void;
}

function say(store: UiStore, text: string, tone: "plain" | "dim" | "warn" | "good"): void {
  store.update((state) => addEntry(state, { type: "info", text, tone }));
}

export async function rewindCommand(
  ctx: RewindContext,
  target: number | null,
  confirmed: boolean,
): Promise<void> {
  const { session, store } = ctx;
  if (!session.rewindPoints || !session.rewind)
    return say(store, "This session cannot rewind.", "warn");
  const points = await session.rewindPoints();
  if (target === null) {
    if (points.length > 0 && ctx.openRewind) return ctx.openRewind(points);
    return say(store, describeRewindPoints(points), "dim");
  }
  const point = points.find((p) => p.number === target);
  if (!point) return say(store, `No prompt ${target} to rewind to; /rewind lists them.`, "warn");
  if (!confirmed)
    return say(
      store,
      `${describeRewindPlan(point)}\nType /rewind ${target} yes to do it.`,
      "plain",
    );
  await doRewind(ctx, target);
}

/** Rewinds to before prompt `number` and puts its text back in the input box. */
export async function doRewind(ctx: RewindContext, number: number): Promise<void> {
  const result = await ctx.session.rewind?.(number);
  if (!result) return;
  say(ctx.store, result.line, result.rewound ? "good" : "warn");
  if (result.rewound && result.prompt !== null) ctx.setDraft?.(result.prompt);
}
