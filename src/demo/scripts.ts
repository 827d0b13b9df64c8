// Scripts the stub endpoint plays back, and builders for both wire formats.
// Every script is plain JSON data so a child-process stub can read it from a file.

/** One piece of a streamed body: raw bytes (already SSE-framed), optionally after a delay. */
export type StreamPart = string | { data: string; delayMs?: number };

/** How a streamed body ends after its last part. */
export type StreamEnd = "close" | "destroy" | "hang";

/** What the stub does with one request. */
export type Script =
  | {
      type: "stream";
      status?: number;
      headers?: Record<string, string>;
      parts: StreamPart[];
      /** Delay before each part that has none of its own. */
      delayMs?: number;
      /** Stop after this many UTF-8 bytes of the whole body, then end as `end` says. */
      cutBodyAt?: number;
      /** `close`: end the body normally; `destroy`: reset the socket; `hang`: keep it open until the client leaves. */
      end?: StreamEnd;
    }
  | {
      type: "reply";
      status: number;
      headers?: Record<string, string>;
      /** A string is sent as is; anything else as JSON. */
      body?: unknown;
      delayMs?: number;
    }
  /** Never answer, not even headers, until the client aborts. */
  | { type: "hang" }
  /** Destroy the socket without answering. */
  | { type: "destroy" };

/** Frames one SSE event; objects are JSON-encoded. */
export function sse(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`;
}

/** Any status, headers and body: `status(429, { headers: { "retry-after": "2" } })`. */
export function status(
  code: number,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Script {
  return {
    type: "reply",
    status: code,
    headers: options.headers ?? {},
    body: options.body ?? { error: { message: `stub status ${code}` } },
  };
}

/** A JSON reply, 200 unless told. */
export function json(
  body: unknown,
  options: { status?: number; headers?: Record<string, string> } = {},
): Script {
  return { type: "reply", status: options.status ?? 200, headers: options.headers ?? {}, body };
}

export function hang(): Script {
  return { type: "hang" };
}

export function destroy(): Script {
  return { type: "destroy" };
}

/** Splits text into pieces of at most `size` characters (at least one piece, possibly empty). */
export function pieces(text: string, size: number): string[] {
  if (text.length === 0) return [""];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += Math.max(1, size)) out.push(text.slice(i, i + size));
  return out;
}

/** Token counts as a stub reports them. */
export interface StubUsage {
  input: number;
  output: number;
}

const defaultUsage: StubUsage = { input: 12, output: 7 };

// ---------------------------------------------------------------- OpenAI

function openaiChunk(delta: unknown, finishReason: string | null = null): string {
  return sse({
    id: "chatcmpl-stub",
    object: "chat.completion.chunk",
    created: 0,
    model: "stub-model",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
}

function openaiUsageChunk(usage: StubUsage): string {
  return sse({
    id: "chatcmpl-stub",
    object: "chat.completion.chunk",
    created: 0,
    model: "stub-model",
    choices: [],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
    },
  });
}

/** Options common to streamed builders. */
export interface StreamOptions {
  /** Finish reason / stop reason to send; null sends none. */
  finishReason?: string | null;
  /** Send the terminator (`[DONE]` / `message_stop`). */
  includeDone?: boolean;
  /** Usage to report; null reports none. */
  usage?: StubUsage | null;
  delayMs?: number;
  end?: StreamEnd;
  headers?: Record<string, string>;
}

/** An OpenAI stream of plain text. */
export function openaiText(
  text: string,
  options: StreamOptions & { chunkSize?: number } = {},
): Script {
  const parts = [openaiChunk({ role: "assistant", content: "" })];
  for (const piece of pieces(text, options.chunkSize ?? 4))
    parts.push(openaiChunk({ content: piece }));
  return openaiFinish(parts, { finishReason: "stop", ...options });
}

/**
 * An OpenAI stream that reasons first (`reasoning_content`, one piece per chunk, `pauseMs` before
 * each, as a reasoning model on a local server does), then answers with `text`.
 */
export function openaiReasoningThenText(
  thought: readonly string[],
  text: string,
  options: StreamOptions & { pauseMs?: number } = {},
): Script {
  const pause = (data: string) => ({ data, delayMs: options.pauseMs ?? 0 });
  const parts: StreamPart[] = [
    openaiChunk({ role: "assistant", content: "" }),
    ...thought.map((piece) => pause(openaiChunk({ reasoning_content: piece }))),
    pause(openaiChunk({ content: text })),
  ];
  return openaiFinish(parts, { finishReason: "stop", ...options });
}

/** One tool call in an OpenAI stream. */
export interface OpenAIToolCallSpec {
  name: string;
  /** Object (JSON-encoded) or the exact argument text to send. */
  args: unknown;
  id?: string;
  /** Characters of argument text per chunk. */
  chunkSize?: number;
  /** Send only the first `cutAt` characters of the argument text, then end the stream there. */
  cutAt?: number;
  /** Text before the call. */
  text?: string;
}

/**
 * An OpenAI stream with one or more tool calls. With `cutAt`, the stream stops inside the arguments:
 * by default no finish reason, no usage, no `[DONE]` (explicit options still apply).
 */
export function openaiToolCall(spec: OpenAIToolCallSpec & StreamOptions): Script {
  return openaiToolCalls([spec], spec);
}

export function openaiToolCalls(calls: OpenAIToolCallSpec[], options: StreamOptions = {}): Script {
  const parts = [openaiChunk({ role: "assistant", content: null })];
  let cut = false;
  calls.forEach((call, index) => {
    if (cut) return;
    if (call.text) parts.push(openaiChunk({ content: call.text }));
    const full = typeof call.args === "string" ? call.args : JSON.stringify(call.args);
    const sent = call.cutAt === undefined ? full : full.slice(0, call.cutAt);
    if (call.cutAt !== undefined) cut = true;
    parts.push(
      openaiChunk({
        tool_calls: [
          {
            index,
            id: call.id ?? `call_${index + 1}`,
            type: "function",
            function: { name: call.name, arguments: "" },
          },
        ],
      }),
    );
    for (const piece of pieces(sent, call.chunkSize ?? 16)) {
      if (piece === "") continue;
      parts.push(openaiChunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  const defaults = cut
    ? { finishReason: null, includeDone: false, usage: null }
    : { finishReason: "tool_calls" };
  return openaiFinish(parts, { ...defaults, ...options });
}

function openaiFinish(parts: StreamPart[], options: StreamOptions): Script {
  const finishReason = options.finishReason === undefined ? "stop" : options.finishReason;
  if (finishReason !== null) parts.push(openaiChunk({}, finishReason));
  const usage = options.usage === undefined ? defaultUsage : options.usage;
  if (usage) parts.push(openaiUsageChunk(usage));
  if (options.includeDone ?? true) parts.push(sse("[DONE]"));
  return streamScript(parts, options);
}

/** A streamed 200 of these parts, with the options' delay, ending and headers. */
export function streamScript(parts: StreamPart[], options: StreamOptions): Script {
  return {
    type: "stream",
    status: 200,
    headers: { "content-type": "text/event-stream", ...(options.headers ?? {}) },
    parts,
    delayMs: options.delayMs ?? 0,
    end: options.end ?? "close",
  };
}

/** A non-streamed OpenAI chat completion. */
export function openaiCompletion(
  options: {
    text?: string | null;
    toolCalls?: { id?: string; name: string; args: unknown }[];
    finishReason?: string | null;
    usage?: StubUsage | null;
  } = {},
): Script {
  const toolCalls = (options.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${index + 1}`,
    type: "function",
    function: {
      name: call.name,
      arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args),
    },
  }));
  const usage = options.usage === undefined ? defaultUsage : options.usage;
  return json({
    id: "chatcmpl-stub",
    object: "chat.completion",
    created: 0,
    model: "stub-model",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: options.text ?? null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason:
          options.finishReason === undefined
            ? toolCalls.length > 0
              ? "tool_calls"
              : "stop"
            : options.finishReason,
      },
    ],
    ...(usage
      ? {
          usage: {
            prompt_tokens: usage.input,
            completion_tokens: usage.output,
            total_tokens: usage.input + usage.output,
          },
        }
      : {}),
  });
}

// ---------------------------------------------------------------- Anthropic

function anthropicEvent(data: { type: string } & Record<string, unknown>): string {
  return sse(data, data.type);
}

function anthropicStart(usage: StubUsage | null): string {
  return anthropicEvent({
    type: "message_start",
    message: {
      id: "msg_stub",
      type: "message",
      role: "assistant",
      model: "stub-model",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage?.input ?? 0, output_tokens: 1 },
    },
  });
}

function anthropicTextBlock(index: number, text: string, chunkSize: number): string[] {
  const parts = [
    anthropicEvent({
      type: "content_block_start",
      index,
      content_block: { type: "text", text: "" },
    }),
  ];
  for (const piece of pieces(text, chunkSize)) {
    parts.push(
      anthropicEvent({
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: piece },
      }),
    );
  }
  parts.push(anthropicEvent({ type: "content_block_stop", index }));
  return parts;
}

function anthropicFinish(parts: string[], options: StreamOptions, defaultStop: string): Script {
  const stopReason = options.finishReason === undefined ? defaultStop : options.finishReason;
  const usage = options.usage === undefined ? defaultUsage : options.usage;
  if (stopReason !== null || usage) {
    parts.push(
      anthropicEvent({
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: usage?.output ?? 0 },
      }),
    );
  }
  if (options.includeDone ?? true) parts.push(anthropicEvent({ type: "message_stop" }));
  return streamScript(parts, options);
}

/** An Anthropic stream of plain text. */
export function anthropicText(
  text: string,
  options: StreamOptions & { chunkSize?: number } = {},
): Script {
  const usage = options.usage === undefined ? defaultUsage : options.usage;
  const parts = [anthropicStart(usage), ...anthropicTextBlock(0, text, options.chunkSize ?? 4)];
  return anthropicFinish(parts, options, "end_turn");
}

/** One tool_use block in an Anthropic stream. */
export interface AnthropicToolUseSpec {
  name: string;
  /** Object (JSON-encoded) or the exact input text to send as `partial_json`. */
  input: unknown;
  id?: string;
  chunkSize?: number;
  /** Send only the first `cutAt` characters of the input JSON, then end the stream there. */
  cutAt?: number;
  /** Text block before the call. */
  text?: string;
}

/**
 * An Anthropic stream with one or more tool_use blocks. With `cutAt`, the stream stops inside the input:
 * by default no content_block_stop, no message_delta, no message_stop (explicit options still apply).
 */
export function anthropicToolUse(spec: AnthropicToolUseSpec & StreamOptions): Script {
  return anthropicToolUses([spec], spec);
}

export function anthropicToolUses(
  calls: AnthropicToolUseSpec[],
  options: StreamOptions = {},
): Script {
  const usage = options.usage === undefined ? defaultUsage : options.usage;
  const parts = [anthropicStart(usage)];
  let index = 0;
  let cut = false;
  for (const call of calls) {
    if (cut) break;
    if (call.text) parts.push(...anthropicTextBlock(index++, call.text, 8));
    const full = typeof call.input === "string" ? call.input : JSON.stringify(call.input);
    const sent = call.cutAt === undefined ? full : full.slice(0, call.cutAt);
    parts.push(
      anthropicEvent({
        type: "content_block_start",
        index,
        content_block: {
          type: "tool_use",
          id: call.id ?? `toolu_${index + 1}`,
          name: call.name,
          input: {},
        },
      }),
    );
    for (const piece of pieces(sent, call.chunkSize ?? 16)) {
      parts.push(
        anthropicEvent({
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: piece },
        }),
      );
    }
    if (call.cutAt !== undefined) {
      cut = true;
      break;
    }
    parts.push(anthropicEvent({ type: "content_block_stop", index }));
    index++;
  }
  const defaults = cut ? { finishReason: null, includeDone: false, usage: null } : {};
  return anthropicFinish(parts, { ...defaults, ...options }, "tool_use");
}

/** An Anthropic in-stream `error` event (e.g. overloaded). */
export function anthropicStreamError(type: string, message: string): string {
  return sse({ type: "error", error: { type, message } }, "error");
}
