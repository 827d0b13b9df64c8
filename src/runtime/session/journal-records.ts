// What the journal keeps of a session beyond its messages: the events worth a record, the reads
// (so read-before-write survives resume) and each change as a checkpoint undo can revert.
import type { AgentEvent, ToolHost, ToolOutcome } from "../../protocol/index.ts";
import type { JournalSink, SessionTools } from "./session-parts.ts";

/** Events worth keeping in the journal beside the messages. */
export const JOURNALED = new Set<AgentEvent["type"]>([
  "request_failed",
  "tool_call_refused",
  "notice",
  "context_fitted",
  "error",
  "aborted",
  "done",
]);

/**
 * Tools whose reads are journaled, so read-before-write survives resume. `turnOf` numbers a prompt's
 * turn across the whole session, so each prompt's turns get checkpoints of their own.
 */
export function journaledTools(
  tools: SessionTools,
  journal: JournalSink,
  turnOf: (turn: number) => number,
): ToolHost {
  return {
    specs: () => tools.specs(),
    readOnly: (name) => tools.readOnly?.(name) ?? false,
    parallel: (name) => tools.parallel?.(name) ?? tools.readOnly?.(name) ?? false,
    permission: (call) => tools.permission(call),
    rememberApproval: (call) => tools.rememberApproval(call),
    ...(tools.saveApproval ? { saveApproval: tools.saveApproval } : {}),
    execute: async (call, signal) => {
      const turn = turnOf(call.turn);
      const outcome = await tools.execute({ ...call, turn }, signal);
      for (const record of outcome.ledger ?? []) journal.ledger(record);
      const change = describeChange(outcome.details);
      if (change) journal.checkpoint(turn, change);
      return outcome;
    },
    unfinishedWrites: () => tools.unfinishedWrites?.() ?? [],
    discardUnfinished: async () => (await tools.discardUnfinished?.()) ?? [],
    notices: () => tools.notices?.() ?? [],
    endOfPrompt: async () => (await tools.endOfPrompt?.()) ?? [],
    ...(tools.filesNamed ? { filesNamed: tools.filesNamed.bind(tools) } : {}),
  };
}

/**
 * The tools as a child agent sees them: its calls run in the parent's turn (so undo takes them with
 * the parent's prompt) under its own read ledger; its changes are journaled like the parent's.
 */
export function childTools(
  tools: SessionTools,
  journal: JournalSink,
  agent: string,
  turn: number,
): ToolHost {
  return {
    specs: () => tools.specs(),
    readOnly: (name) => tools.readOnly?.(name) ?? false,
    parallel: (name) => tools.parallel?.(name) ?? tools.readOnly?.(name) ?? false,
    permission: (call) => tools.permission({ ...call, turn, agent }),
    rememberApproval: (call) => tools.rememberApproval({ ...call, turn, agent }),
    execute: async (call, signal) => {
      const outcome = await tools.execute({ ...call, turn, agent }, signal);
      const change = describeChange(outcome.details);
      if (change) journal.checkpoint(turn, `${agent}: ${change}`);
      return outcome;
    },
    // A write in parts the child left unfinished is its to finish, or is discarded when it ends.
    unfinishedWrites: () => tools.unfinishedWrites?.() ?? [],
    discardUnfinished: async () => (await tools.discardUnfinished?.()) ?? [],
    ...(tools.filesNamed ? { filesNamed: tools.filesNamed.bind(tools) } : {}),
  };
}

/**
 * Listeners (the chat, `--json`, an editor) get a message's images without their bytes: megabytes of
 * base64 in every line of `--json` would help no one; the journal and the requests have them.
 */
export function withoutImageBytes(event: AgentEvent): AgentEvent {
  if (event.type !== "message_added") return event;
  const { message } = event;
  if (message.type === "assistant" || !message.images?.length) return event;
  return {
    ...event,
    message: { ...message, images: message.images.map((image) => ({ ...image, data: "" })) },
  };
}

/** What a tool changed, for the journal's checkpoint records; null for reads and failures. */
function describeChange(details: ToolOutcome["details"]): string | null {
  switch (details?.type) {
    case "write":
      return `write_file ${details.path} (${details.created ? "created" : `replaced ${details.previousBytes} bytes`}, now ${details.bytes} bytes)`;
    case "edit":
      return `edit_file ${details.path} (${details.replacements} replacement(s), now ${details.bytes} bytes)`;
    case "bash":
      return `bash ${details.command}`;
    default:
      return null;
  }
}
