// What of a turn's wire content goes back in history. Reasoning is needed back only on a turn that
// called tools (Anthropic checks thinking signatures there; DeepSeek's thinking mode answers 400
// without `reasoning_content` there); elsewhere it is dropped, so it does not fill the window.
// Server-side tool blocks always go back as they came: they are part of the conversation.
import type { Replay } from "../../protocol/index.ts";

const THINKING = new Set(["thinking", "redacted_thinking"]);

export function historyReplay(
  replay: Replay,
  calledTools: boolean,
  paused: boolean,
): Replay | null {
  if (calledTools || paused) return replay;
  const blocks = replay.anthropicBlocks?.filter((block) => !THINKING.has(String(block.type)));
  const keep = blocks?.some((block) => block.type !== "text" && block.type !== "tool_use");
  return keep && blocks ? { anthropicBlocks: blocks } : null;
}
