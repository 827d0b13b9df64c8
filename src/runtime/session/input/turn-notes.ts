import type { ToolHost } from "../../../protocol/index.ts";

/**
 * Notes from outside the conversation (a time budget running out, a message from the orchestrator's
 * inbox) reach the model at the next turn boundary: appended to the next tool result it reads, marked
 * as nex's, so no request is sent for them and the conversation keeps its shape on every wire.
 */
export function withTurnNotes<T extends ToolHost>(host: T, take: (() => string[]) | undefined): T {
  if (!take) return host;
  return {
    ...host,
    async execute(call, signal) {
      const outcome = await host.execute(call, signal);
      // A child agent's result is the child's: the notes wait for the session's own next result. An
      // interrupted call's result goes to no model now: they wait for whatever the user does next.
      if (call.agent !== undefined || signal.aborted) return outcome;
      const notes = take();
      if (notes.length === 0) return outcome;
      const added = notes.map((note) => `[nex: not part of this tool's output] ${note}`).join("\n");
      return { ...outcome, content: `${outcome.content}\n\n${added}` };
    },
  };
}
