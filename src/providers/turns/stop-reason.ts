import type { StopReason } from "../../protocol/index.ts";

/** The wire formats nex speaks: Chat Completions, Anthropic Messages, OpenAI Responses. */
export type WireFormat = "openai" | "anthropic" | "responses";

// How OpenAI-compatible servers other than OpenAI say "the model ended on its own": TGI's `eos_token`
// and `stop_sequence`, some llama.cpp and vLLM builds' `eos`, gateways passing Anthropic's `end_turn`.
const NATURAL_ENDS = new Set(["stop", "eos", "eos_token", "stop_sequence", "end_turn"]);

/** Maps a wire stop reason to the provider-neutral one. */
export function mapStopReason(wire: WireFormat, raw: string | null): StopReason {
  if (raw === null) return "other";
  if (wire === "openai") {
    if (NATURAL_ENDS.has(raw)) return "stop";
    // llama.cpp's server said `tool` before it said `tool_calls`.
    if (raw === "tool_calls" || raw === "function_call" || raw === "tool") return "tool_calls";
    if (raw === "length") return "length";
    if (raw === "content_filter") return "content_filter";
    return "other";
  }
  if (wire === "responses") {
    // The response's `status`, or the `incomplete_details.reason` of an incomplete one.
    if (raw === "completed") return "stop";
    if (raw === "max_output_tokens") return "length";
    if (raw === "content_filter") return "content_filter";
    return "other";
  }
  if (raw === "end_turn" || raw === "stop_sequence") return "stop";
  if (raw === "tool_use") return "tool_calls";
  if (raw === "max_tokens" || raw === "model_context_window_exceeded") return "length";
  if (raw === "refusal") return "content_filter";
  if (raw === "pause_turn") return "pause";
  return "other";
}

/** True for the stop reasons after which a tool call may be dispatched: the model ended on its own. */
export function isNormalStop(wire: WireFormat, raw: string | null): boolean {
  const reason = mapStopReason(wire, raw);
  return reason === "stop" || reason === "tool_calls";
}

/** The explicit end-of-stream marker of a wire format, as named in messages. */
export function terminatorName(wire: WireFormat, streaming: boolean): string {
  if (!streaming) return "a complete JSON body";
  if (wire === "responses") return "response.completed";
  return wire === "openai" ? "[DONE]" : "message_stop";
}
