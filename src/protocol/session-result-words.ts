import { formatCount } from "./counts.ts";
import type { CompactResult, ModelSwitchResult, UndoResult } from "./session-results.ts";

const tokens = (n: number): string => formatCount(n);

/** nex's wording of a compaction, in one line. */
export function describeCompact(result: CompactResult): string {
  switch (result.kind) {
    case "compacted": {
      const back = restoredWords(result);
      return `Compacted ${result.summarised} earlier messages into a summary: ~${tokens(result.tokensBefore)} → ~${tokens(result.tokensAfter)} tokens, ${result.messagesAfter} messages kept${back}.`;
    }
    case "not_needed":
      return `Nothing to compact: ${result.reason}.`;
    case "failed":
      return `Compaction failed, the conversation is unchanged: ${result.reason}.`;
    case "busy":
      return result.reason;
  }
}

function restoredWords(result: Extract<CompactResult, { kind: "compacted" }>): string {
  const { restored } = result;
  const parts: string[] = [];
  if (restored.task) parts.push("the task");
  if (restored.todos) parts.push("the todo list");
  const files = restored.filesReread.length + restored.filesNamed.length;
  if (files > 0) parts.push(`${files} recent file${files === 1 ? "" : "s"}`);
  return parts.length > 0 ? `; restored ${parts.join(", ")}` : "";
}

/** nex's wording of a model switch. */
export function describeModelSwitch(result: ModelSwitchResult): string {
  if (result.kind === "failed") return `The model is still the previous one: ${result.reason}`;
  if (result.kind === "refused") return result.reason;
  return `Model is now ${result.model}: window ${result.contextWindow} tokens (${result.windowSource}).`;
}

/** nex's wording of an undo: its own account. */
export function describeUndo(result: UndoResult): string {
  return result.report;
}
