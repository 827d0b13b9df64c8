import type { AgentEvent } from "../../protocol/index.ts";

type Block = "text" | "thinking" | "tool_use";

/**
 * Turns nex's streaming events into Anthropic's raw stream events (`message_start`,
 * `content_block_start` / `_delta` / `_stop`, `message_delta`, `message_stop`), the `event` of
 * Claude Code's `stream_event` lines. Whatever the endpoint's wire, the consumer sees one shape.
 */
export function createPartialEvents(model: () => string) {
  let index = -1;
  let open: { kind: Block; toolIndex?: number } | null = null;
  let messageId = "";
  const close = (out: Record<string, unknown>[]) => {
    if (open) out.push({ type: "content_block_stop", index });
    open = null;
  };
  const start = (out: Record<string, unknown>[], kind: Block, block: Record<string, unknown>) => {
    close(out);
    index += 1;
    open = { kind };
    out.push({ type: "content_block_start", index, content_block: block });
  };
  return {
    /** The raw events for one of nex's events (none for most). */
    see(event: AgentEvent): Record<string, unknown>[] {
      const out: Record<string, unknown>[] = [];
      switch (event.type) {
        case "request_started":
          if (event.attempt !== 1) return out;
          index = -1;
          open = null;
          messageId = `msg_nex_${event.requestId}_${Date.now().toString(36)}`;
          out.push({
            type: "message_start",
            message: {
              id: messageId,
              type: "message",
              role: "assistant",
              model: model(),
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: 0, output_tokens: 0 },
            },
          });
          return out;
        case "text_delta":
          if (open?.kind !== "text") start(out, "text", { type: "text", text: "" });
          out.push({
            type: "content_block_delta",
            index,
            delta: { type: "text_delta", text: event.text },
          });
          return out;
        case "reasoning_delta":
          if (open?.kind !== "thinking")
            start(out, "thinking", { type: "thinking", thinking: "", signature: "" });
          out.push({
            type: "content_block_delta",
            index,
            delta: { type: "thinking_delta", thinking: event.text },
          });
          return out;
        case "tool_call_delta": {
          const current = open as { kind: Block; toolIndex?: number } | null;
          if (current?.kind !== "tool_use" || current.toolIndex !== event.index) {
            start(out, "tool_use", {
              type: "tool_use",
              id: `toolu_pending_${event.index}`,
              name: event.name ?? "",
              input: {},
            });
            open = { kind: "tool_use", toolIndex: event.index };
          }
          if (event.argumentsDelta)
            out.push({
              type: "content_block_delta",
              index,
              delta: { type: "input_json_delta", partial_json: event.argumentsDelta },
            });
          return out;
        }
        case "request_finished":
          if (event.purpose === "compaction") return out;
          close(out);
          out.push({
            type: "message_delta",
            delta: { stop_reason: anthropicStopReason(event.stopReason), stop_sequence: null },
            usage: { output_tokens: event.usage?.outputTokens ?? 0 },
          });
          out.push({ type: "message_stop" });
          return out;
        case "request_failed":
          if (event.retryInMs === null) close(out);
          return out;
        default:
          return out;
      }
    },
  };
}

/** Anthropic's name for nex's stop reason. */
export function anthropicStopReason(reason: string): string | null {
  switch (reason) {
    case "stop":
      return "end_turn";
    case "tool_calls":
      return "tool_use";
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    case "pause":
      return "pause_turn";
    default:
      return null;
  }
}
