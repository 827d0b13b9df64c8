// Builders of OpenAI Responses API streams (`POST /v1/responses`) for the stub endpoint, framed as
// OpenAI sends them: `event: <type>` then `data: <json>`.
import {
  pieces,
  type Script,
  type StreamOptions,
  type StubUsage,
  sse,
  streamScript,
} from "./scripts.ts";

/** One function call in a Responses stream. */
export interface ResponsesCallSpec {
  name: string;
  /** Object (JSON-encoded) or the exact argument text to send. */
  args: unknown;
  callId?: string;
  /** Characters of argument text per delta. */
  chunkSize?: number;
  /** Send only the first `cutAt` characters of the arguments, then stop the stream there. */
  cutAt?: number;
  /** The item's status in its `output_item.done` (default `completed`). */
  status?: "completed" | "incomplete";
}

/** What a Responses stream holds and how it ends. */
export interface ResponsesStreamSpec extends Pick<StreamOptions, "delayMs" | "end" | "headers"> {
  /** A reasoning item's summary text, streamed first. */
  reasoning?: string;
  /** Its encrypted content. */
  encrypted?: string;
  /** The answer text. */
  text?: string;
  calls?: ResponsesCallSpec[];
  /** The last event: `response.completed` by default; `none` sends nothing after the items. */
  ending?: "completed" | "incomplete" | "failed" | "error" | "none";
  /** `incomplete_details.reason` of an incomplete response (default `max_output_tokens`). */
  incompleteReason?: string;
  /** The error of a failed response or an error event. */
  error?: { code: string; message: string };
  usage?: StubUsage | null;
  cachedTokens?: number;
}

function event(data: Record<string, unknown>): string {
  return sse(data, String(data.type));
}

type Push = (data: Record<string, unknown>) => void;
type Output = Record<string, unknown>[];

/** A reasoning item with its summary streamed. */
function reasoningItem(
  push: Push,
  output: Output,
  index: number,
  reasoning: string,
  encrypted?: string,
): void {
  const id = "rs_stub";
  push({
    type: "response.output_item.added",
    output_index: index,
    item: { id, type: "reasoning", summary: [] },
  });
  for (const piece of pieces(reasoning, 8))
    push({
      type: "response.reasoning_summary_text.delta",
      item_id: id,
      output_index: index,
      summary_index: 0,
      delta: piece,
    });
  const item = {
    id,
    type: "reasoning",
    summary: [{ type: "summary_text", text: reasoning }],
    ...(encrypted ? { encrypted_content: encrypted } : {}),
  };
  push({ type: "response.output_item.done", output_index: index, item });
  output.push(item);
}

/** A message item with its text streamed. */
function textItem(push: Push, output: Output, index: number, text: string): void {
  const id = "msg_stub";
  push({
    type: "response.output_item.added",
    output_index: index,
    item: { id, type: "message", role: "assistant", status: "in_progress", content: [] },
  });
  for (const piece of pieces(text, 4))
    push({
      type: "response.output_text.delta",
      item_id: id,
      output_index: index,
      content_index: 0,
      delta: piece,
    });
  const item = {
    id,
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  };
  push({ type: "response.output_item.done", output_index: index, item });
  output.push(item);
}

/** A function call item with its arguments streamed; false when the call is cut (the stream stops). */
function callItem(push: Push, output: Output, index: number, call: ResponsesCallSpec): boolean {
  const id = `fc_stub_${index}`;
  const callId = call.callId ?? `call_${index + 1}`;
  const full = typeof call.args === "string" ? call.args : JSON.stringify(call.args);
  const sent = call.cutAt === undefined ? full : full.slice(0, call.cutAt);
  push({
    type: "response.output_item.added",
    output_index: index,
    item: {
      id,
      type: "function_call",
      status: "in_progress",
      arguments: "",
      call_id: callId,
      name: call.name,
    },
  });
  for (const piece of pieces(sent, call.chunkSize ?? 16))
    if (piece !== "")
      push({
        type: "response.function_call_arguments.delta",
        item_id: id,
        output_index: index,
        delta: piece,
      });
  if (call.cutAt !== undefined) return false;
  push({
    type: "response.function_call_arguments.done",
    item_id: id,
    output_index: index,
    arguments: full,
  });
  const item = {
    id,
    type: "function_call",
    status: call.status ?? "completed",
    arguments: full,
    call_id: callId,
    name: call.name,
  };
  push({ type: "response.output_item.done", output_index: index, item });
  output.push(item);
  return true;
}

/** The last event: the response completed, incomplete, failed, an error event, or none. */
function endResponse(
  push: Push,
  response: Record<string, unknown>,
  spec: ResponsesStreamSpec,
  cut: boolean,
): void {
  const ending = spec.ending ?? (cut ? "none" : "completed");
  const usage = spec.usage === undefined ? { input: 12, output: 7 } : spec.usage;
  const usageJson = usage
    ? {
        input_tokens: usage.input,
        input_tokens_details: { cached_tokens: spec.cachedTokens ?? 0 },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input + usage.output,
      }
    : null;
  const error = spec.error ?? { code: "server_error", message: "stub failure" };
  if (ending === "completed")
    push({
      type: "response.completed",
      response: { ...response, status: "completed", usage: usageJson },
    });
  else if (ending === "incomplete")
    push({
      type: "response.incomplete",
      response: {
        ...response,
        status: "incomplete",
        incomplete_details: { reason: spec.incompleteReason ?? "max_output_tokens" },
        usage: usageJson,
      },
    });
  else if (ending === "failed")
    push({
      type: "response.failed",
      response: { ...response, status: "failed", error, usage: null },
    });
  else if (ending === "error") push({ type: "error", ...error, param: null });
}

/** A Responses API stream: reasoning, text, function calls, then its ending. */
export function responsesStream(spec: ResponsesStreamSpec): Script {
  const parts: string[] = [];
  const output: Record<string, unknown>[] = [];
  const response = { id: "resp_stub", object: "response", model: "stub-model", output };
  let seq = 0;
  const push = (data: Record<string, unknown>) =>
    parts.push(event({ ...data, sequence_number: seq++ }));
  push({ type: "response.created", response: { ...response, status: "in_progress", output: [] } });
  let index = 0;
  if (spec.reasoning !== undefined) {
    reasoningItem(push, output, index, spec.reasoning, spec.encrypted);
    index++;
  }
  if (spec.text !== undefined) {
    textItem(push, output, index, spec.text);
    index++;
  }
  let cut = false;
  for (const call of spec.calls ?? []) {
    if (!callItem(push, output, index, call)) {
      cut = true;
      break;
    }
    index++;
  }
  endResponse(push, response, spec, cut);
  return streamScript(parts, spec);
}
