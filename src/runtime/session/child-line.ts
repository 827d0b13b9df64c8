import type { AgentEvent } from "../../protocol/index.ts";

/**
 * A child agent's event as one progress line for a UI, or null for what a UI leaves to `--json`
 * (its text, its requests, its messages). Permission requests are not here: UIs ask them as the parent's.
 */
export function describeChildEvent(event: AgentEvent): string | null {
  if (!event.agent) return null;
  const who = `[${event.agent.id} ${event.agent.kind}]`;
  switch (event.type) {
    case "tool_call_started": {
      const target = event.args.path ?? event.args.pattern ?? event.args.command ?? "";
      return `${who} ${event.name} ${String(target).slice(0, 80)}`.trimEnd();
    }
    case "tool_call_refused":
      return `${who} ${event.name} refused: ${event.reason.slice(0, 160)}`;
    case "notice":
      return `${who} ${event.message}`;
    case "done":
      // The one-request pieces of summarize, reader, chunk_map and deep_research show as their
      // progress notices instead.
      return ["summarize", "reader", "map", "chunk", "deep_research"].includes(event.agent.kind)
        ? null
        : `${who} finished in ${event.turns} turn(s)`;
    case "error":
      return `${who} stopped: ${event.message}`;
    case "aborted":
      // The user, or a deadline of its own (a map item's): the reason says which.
      return `${who} did not finish (${event.reason})`;
    default:
      return null;
  }
}
