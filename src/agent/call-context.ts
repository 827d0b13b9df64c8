import type { AssembledToolCall, ToolResultMessage } from "../protocol/index.ts";
import type { LoopOptions } from "./loop-options.ts";
import type { RefusalTracker } from "./refusal-tracker.ts";
import type { RepeatGuard } from "./repeat-guard.ts";
import type { AliasedCall } from "./tool-aliases.ts";

/** What handling one call needs from its run. */
export interface CallContext {
  turn: number;
  options: LoopOptions;
  tracker: RefusalTracker;
  repeats: RepeatGuard;
  /** Refusal kinds of this turn, for the tracker. */
  refusals: string[];
  /** Calls made under a Claude Code name, by call id (see `tool-aliases.ts`). */
  aliases?: Map<string, AliasedCall>;
  /** In a batch run side by side: a question waits for this (the calls before have asked theirs)... */
  askAfter?: Promise<void>;
  /** ...and this says this call is past its question (or needs none). */
  asked?: () => void;
}

/** The tool result that answers `call` in the conversation. */
export function answerCall(
  call: AssembledToolCall,
  content: string,
  isError: boolean,
): ToolResultMessage {
  return { type: "tool_result", toolCallId: call.id, toolName: call.name, content, isError };
}
