import type { Replay } from "./messages.ts";

/** Provider-neutral stop reason; `rawStopReason` keeps the wire value. */
export type StopReason =
  | "stop"
  | "tool_calls"
  | "length"
  | "content_filter"
  /** The server paused its own long turn (Anthropic `pause_turn`): send the turn back to continue it. */
  | "pause"
  | "other";

/** Token counts reported by the endpoint. */
export interface Usage {
  /** The whole prompt, cached parts included (they fill the window all the same). */
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens the server read from its prompt cache (Anthropic, OpenAI, vLLM, llama.cpp...). */
  cacheReadTokens?: number;
  /** Prompt tokens the server wrote to its cache for later requests (Anthropic). */
  cacheWriteTokens?: number;
}

/** Why a tool call was not received whole. */
export type PoisonCause =
  | "output_limit"
  | "stream_dropped"
  | "abnormal_stop"
  | "unparseable"
  | "not_an_object";

/** How argument text became a value: strictly, or by a recovery that added no bytes. */
export type ArgumentRecovery = "strict" | "fence" | "extracted";

/** Whether a tool call may be dispatched, and if not, why. */
export type CallVerdict =
  | { type: "whole"; args: Record<string, unknown>; recovery: ArgumentRecovery }
  | {
      type: "poisoned";
      cause: PoisonCause;
      /** Plain words for the model and the user, e.g. "output was cut off at the 4096-token output limit while writing `content`". */
      reason: string;
      /** UTF-8 bytes of argument text received. */
      bytesReceived: number;
    };

/** A tool call as assembled from a response, with its integrity verdict. */
export interface AssembledToolCall {
  id: string;
  name: string;
  argumentsText: string;
  verdict: CallVerdict;
}

/** A whole model response, assembled from a stream or a single body. */
export interface AssembledTurn {
  text: string;
  toolCalls: AssembledToolCall[];
  stopReason: StopReason;
  rawStopReason: string | null;
  /** The stream ended with its explicit terminator (`[DONE]`, `message_stop`), or a complete JSON body arrived. */
  terminated: boolean;
  /** What ended the stream early, when known (e.g. "the endpoint reported an error mid-stream: Overloaded"). */
  dropDetail?: string;
  /** nex cut the stream: its output went far past `max_tokens` (the server ignored the limit). */
  outputOverrun?: boolean;
  /** nex cut the stream: the text looped (e.g. "the same read_file call 3 times in a row"). */
  runaway?: string;
  usage: Usage | null;
  /** The model's reasoning, apart from its text (reasoning fields, thinking blocks, `<think>` tags). */
  reasoning?: string;
  /** The reasoning came inside the answer's text as `<think>` tags, not in a field of its own. */
  reasoningInContent?: boolean;
  /** The model declined: its refusal text (OpenAI `refusal`), shown as such. */
  refusal?: string;
  /**
   * What the assistant message must carry back to this endpoint so the conversation stays valid:
   * Anthropic's content blocks as they came (thinking with its signature, server-side tool blocks),
   * DeepSeek's `reasoning_content`. See `AssistantMessage.replay`.
   */
  replay?: Replay;
  /** The `max_tokens` that was sent. */
  maxTokens: number;
}
