// What Ctrl-O prints below the chat, in full (the scrollback keeps each block as it was).
import { formatLines, formatSize } from "../protocol/counts.ts";
import { plainText } from "../protocol/plain-text.ts";
import type { Entry, UiState } from "./state/index.ts";

type Running = UiState["transcript"]["running"];

/**
 * What Ctrl-O shows below, in full (the scrollback keeps the block as it was): the latest command's
 * whole result as the model got it, or the latest child agent's steps; null when there is neither.
 */
export function expansion(entries: readonly Entry[]): string | null {
  const last = [...entries]
    .reverse()
    .find(
      (e) => e.type === "tool" && (e.child || (e.name === "bash" && e.outcome?.type === "result")),
    );
  if (last?.type === "tool" && !last.child && last.outcome?.type === "result") {
    // A long one names its stored copy.
    const all = plainText(last.outcome.content).split("\n");
    const shown = all.slice(-400);
    return [
      `$ ${plainText(String(last.args.command ?? ""))}`,
      ...(all.length > shown.length ? [`… ${all.length - shown.length} earlier lines`] : []),
      ...shown,
    ].join("\n");
  }
  const child = last?.type === "tool" ? last.child : undefined;
  if (!child) return null;
  const hidden = child.count - child.steps.length;
  return [
    `${child.who}, every step:`,
    ...(hidden > 0 ? [`… ${hidden} earlier steps not kept`] : []),
    ...child.steps.map((step, i) => `${hidden + i + 1}. ${plainText(step)}`),
  ].join("\n");
}

/**
 * While a command runs, Ctrl-O is about that command, never an earlier one: what it printed so far
 * (the lines the chat holds), and that its whole output shows once it ends.
 */
export function runningExpansion(running: Running): string | null {
  const command = running.findLast((tool) => tool.name === "bash" && tool.started);
  if (!command) return null;
  const live = command.live;
  const so = live
    ? `running: ${formatLines(live.lines)}, ${formatSize(live.bytes)} so far; its last lines:`
    : "running: no output yet.";
  return [
    `$ ${plainText(String(command.args.command ?? ""))}`,
    so,
    ...(live ? plainText(live.tail).split("\n") : []),
    "Ctrl-O once it ends shows its whole output.",
  ].join("\n");
}
