// OpenAI-compatible Chat Completions (vLLM, llama.cpp, Ollama, LM Studio, OpenRouter, OpenAI) over
// node:http (http-client.ts) + eventsource-parser. No SDK: SDK stream helpers repair partial JSON and SDK retries multiply ours.
import type { ProviderError, ProviderEvent, StreamFn, Usage } from "../../protocol/index.ts";
import { type ClientOptions, trimSlash } from "../client-config.ts";
import {
  eventJson,
  type FailureContext,
  inBodyError,
  type ReadOutcome,
  StreamFailure,
  serverMessageOf,
  sseEvents,
  unparsedToolCall,
} from "../http/index.ts";
import type { TurnAssembler } from "../turns/index.ts";
import { isObject } from "../turns/index.ts";
import { createWireClient, finishStream, readJsonObject } from "../wire-client.ts";
import { type MaxTokensField, openaiBodyText } from "./openai-wire.ts";

/** Options of the OpenAI-compatible client. */
export interface OpenAIClientOptions extends ClientOptions {
  /** Stream the response (default true). */
  stream?: boolean;
  /** Default `max_tokens`. */
  maxTokensField?: MaxTokensField;
}

export function createOpenAIClient(options: OpenAIClientOptions): StreamFn {
  const streaming = options.stream ?? true;
  const maxTokensField = options.maxTokensField ?? "max_tokens";
  return createWireClient(options, {
    wire: "openai",
    url: `${trimSlash(options.baseUrl)}/chat/completions`,
    streaming,
    auth: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    headers: {},
    keyName: "the API key (OPENAI_API_KEY or the provider's key setting)",
    body: (request) => openaiBodyText(request, { stream: streaming, maxTokensField }),
    readStream,
    readWhole,
    explicitClose: false,
  });
}

async function* readStream(
  chunks: AsyncIterable<Uint8Array>,
  assembler: TurnAssembler,
  context: FailureContext,
): AsyncGenerator<ProviderEvent, ReadOutcome> {
  const calls = createCallIndexer();
  let unreadable: string | null = null;
  try {
    for await (const event of sseEvents(chunks)) {
      if (event.data.trim() === "[DONE]") {
        assembler.markTerminated();
        break;
      }
      const chunk = eventJson(event);
      if (!isObject(chunk)) {
        unreadable ??= event.data.slice(0, 80);
        continue;
      }
      if (chunk.error !== undefined && chunk.error !== null) {
        // The server could not parse the model's tool call: the text so far is no answer, and a new
        // sample may parse, so this fails the attempt even after output (retried once, marked).
        const unparsed = unparsedToolCall(chunk, context);
        if (unparsed) return { type: "failed", error: unparsed };
        const error = inBodyError(chunk, context);
        if (!assembler.hasOutput()) return { type: "failed", error };
        assembler.markDropped(
          `the endpoint reported an error mid-stream: ${serverMessageOf(JSON.stringify(chunk))}`,
        );
        break;
      }
      if (isObject(chunk.usage)) assembler.setUsage(usageOf(chunk.usage));
      for (const choice of firstChoice(chunk.choices)) {
        const delta = isObject(choice.delta) ? choice.delta : {};
        yield* readMessageParts(delta, assembler);
        for (const call of callDeltas(delta)) {
          const index = calls.indexOf(call);
          const fn = functionOf(call);
          const name = typeof fn.name === "string" && fn.name !== "" ? fn.name : null;
          const args = argumentsTextOf(fn.arguments);
          assembler.addCallDelta(index, { id: stringOrNull(call.id), name, argumentsText: args });
          yield { type: "tool_call_delta", index, name, argumentsDelta: args };
        }
        if (typeof choice.finish_reason === "string") assembler.setStopReason(choice.finish_reason);
      }
      // Far past max_tokens, or a loop: stop reading (the assembler has cut the turn).
      if (assembler.isCut()) break;
    }
  } catch (error) {
    if (!(error instanceof StreamFailure) || error.kind === "aborted" || !assembler.hasOutput())
      throw error;
    assembler.markDropped(error.message);
  }
  yield* assembler.endContent();
  if (unreadable !== null && !assembler.hasOutput()) {
    return { type: "failed", error: unreadableStream(context, unreadable) };
  }
  return finishStream(assembler, context);
}

/**
 * A call's argument text. Some servers (and some Ollama and LM Studio versions, streamed or not) send
 * the arguments as an object they already parsed: its JSON text is exactly what was sent, and the
 * stream's own completeness checks still apply.
 */
function argumentsTextOf(value: unknown): string {
  if (typeof value === "string") return value;
  return value === undefined || value === null ? "" : JSON.stringify(value);
}

/** A stream of events that are not the wire format's JSON: not an OpenAI-compatible endpoint, or a broken one. */
function unreadableStream(context: FailureContext, sample: string): ProviderError {
  return {
    code: "invalid_response",
    retryable: false,
    message: `${context.host} streamed events that are not OpenAI-compatible JSON (first: ${JSON.stringify(sample)}), and no usable output. Check the base URL and that the server speaks the Chat Completions API.`,
  };
}

async function* readWhole(
  chunks: AsyncIterable<Uint8Array>,
  assembler: TurnAssembler,
  context: FailureContext,
): AsyncGenerator<ProviderEvent, ReadOutcome> {
  const body = await readJsonObject(chunks, context);
  if (body.type === "failed") return body;
  const parsed = body.value;
  if (parsed.error !== undefined && parsed.error !== null)
    return { type: "failed", error: inBodyError(parsed, context) };
  const choice = firstChoice(parsed.choices)[0];
  const message = choice && isObject(choice.message) ? choice.message : {};
  yield* readMessageParts(message, assembler);
  yield* assembler.endContent();
  const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : [];
  for (const [index, call] of toolCalls.entries()) {
    const fn = functionOf(call);
    const name = typeof fn.name === "string" ? fn.name : "";
    const args = argumentsTextOf(fn.arguments);
    assembler.addCallDelta(index, { id: stringOrNull(call.id), name, argumentsText: args });
    yield { type: "tool_call_delta", index, name: name || null, argumentsDelta: args };
  }
  if (choice && typeof choice.finish_reason === "string")
    assembler.setStopReason(choice.finish_reason);
  if (isObject(parsed.usage)) assembler.setUsage(usageOf(parsed.usage));
  assembler.markTerminated();
  return { type: "turn", turn: assembler.finish() };
}

/**
 * A call's name and arguments: under `function` as OpenAI documents, or on the call itself (older
 * llama.cpp servers, as their function-calling documentation shows).
 */
function functionOf(call: Record<string, unknown>): Record<string, unknown> {
  return isObject(call.function) ? call.function : call;
}

function firstChoice(choices: unknown): Record<string, unknown>[] {
  if (!Array.isArray(choices)) return [];
  return choices
    .filter(isObject)
    .filter((choice) => choice.index === undefined || choice.index === 0);
}

function callDeltas(delta: Record<string, unknown>): Record<string, unknown>[] {
  if (Array.isArray(delta.tool_calls)) return delta.tool_calls.filter(isObject);
  // TGI before 3.0 sends one call as an object, not a list.
  if (isObject(delta.tool_calls)) return [delta.tool_calls];
  // The legacy single `function_call` delta.
  if (isObject(delta.function_call)) return [{ index: 0, function: delta.function_call }];
  return [];
}

/**
 * Call index per delta: the wire `index` when present; otherwise a new id starts a new call and
 * a delta without id continues the last one (servers that omit `index`). A new id under an index
 * that already belongs to another call, announcing a name, also starts a new call: some servers
 * number every call 0, and joining two calls' arguments would make one call of neither.
 */
function createCallIndexer() {
  const byId = new Map<string, number>();
  // Ids moved off their wire index, and the call streaming at each wire index now.
  const remapped = new Map<string, number>();
  const current = new Map<number, number>();
  const idAt = new Map<number, string>();
  let last = -1;
  let count = 0;
  return {
    indexOf(call: Record<string, unknown>): number {
      const id = typeof call.id === "string" && call.id !== "" ? call.id : null;
      const fn = functionOf(call);
      // A new call announces its name; a fragment that merely repeats a (changing) id does not.
      const announces = typeof fn.name === "string" && fn.name !== "";
      let index: number;
      if (typeof call.index === "number") {
        const wire = call.index;
        const moved = id === null ? undefined : remapped.get(id);
        if (moved !== undefined) index = moved;
        else {
          const at = current.get(wire) ?? wire;
          const owner = idAt.get(at);
          if (id !== null && owner !== undefined && owner !== id && announces) {
            index = Math.max(count, wire + 1);
            remapped.set(id, index);
          } else index = at;
        }
        current.set(wire, index);
      } else if (id !== null) index = byId.get(id) ?? count;
      else index = Math.max(last, 0);
      if (id !== null) {
        if (!byId.has(id)) byId.set(id, index);
        if (!idAt.has(index)) idAt.set(index, id);
      }
      if (index >= count) count = index + 1;
      last = index;
      return index;
    },
  };
}

/**
 * `prompt_tokens` includes the cached part; OpenAI, vLLM and llama.cpp name it in
 * `prompt_tokens_details.cached_tokens`, DeepSeek in `prompt_cache_hit_tokens`.
 */
function usageOf(usage: Record<string, unknown>): Partial<Usage> {
  const out: Partial<Usage> = {};
  if (typeof usage.prompt_tokens === "number") out.inputTokens = usage.prompt_tokens;
  if (typeof usage.completion_tokens === "number") out.outputTokens = usage.completion_tokens;
  const details = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const cached = details.cached_tokens ?? usage.prompt_cache_hit_tokens;
  // Zero is an answer too: the server caches, and reused nothing this time.
  if (typeof cached === "number" && cached >= 0) out.cacheReadTokens = cached;
  return out;
}

/**
 * The answer, reasoning and refusal of one delta or message. Reasoning comes as `reasoning_content`
 * (vLLM, DeepSeek, llama.cpp), `reasoning` (Groq, OpenRouter, newer vLLM), `reasoning_details`
 * (OpenRouter, beside `reasoning`, so read only without it), parts of a content array
 * (`{type: "thinking"}`, Mistral), or `<think>` tags opening the content.
 */
function* readMessageParts(
  part: Record<string, unknown>,
  assembler: TurnAssembler,
): Generator<ProviderEvent> {
  const reasoning = reasoningOf(part);
  if (reasoning !== "") {
    assembler.addReasoning(reasoning);
    if (typeof part.reasoning_content === "string" && part.reasoning_content !== "") {
      // DeepSeek wants it back on tool-call turns; the assembler fills in the whole text.
      assembler.setReplay({ reasoningContent: "" });
    }
    yield { type: "reasoning_delta", text: reasoning };
  }
  if (typeof part.content === "string") yield* assembler.addContent(part.content);
  else if (Array.isArray(part.content)) {
    for (const item of part.content.filter(isObject)) {
      if (item.type === "thinking" || item.type === "reasoning") {
        const thought = partText(item.thinking ?? item.reasoning ?? item.text);
        if (thought !== "") {
          assembler.addReasoning(thought);
          yield { type: "reasoning_delta", text: thought };
        }
      } else if (item.type === "refusal" && typeof item.refusal === "string") {
        assembler.addRefusal(item.refusal);
      } else if (typeof item.text === "string") yield* assembler.addContent(item.text);
    }
  }
  if (typeof part.refusal === "string") assembler.addRefusal(part.refusal);
}

function reasoningOf(part: Record<string, unknown>): string {
  for (const key of ["reasoning_content", "reasoning"]) {
    const value = part[key];
    if (typeof value === "string" && value !== "") return value;
  }
  if (!Array.isArray(part.reasoning_details)) return "";
  return part.reasoning_details
    .filter(isObject)
    .map((detail) => partText(detail.text ?? detail.summary))
    .join("");
}

/** Text given as a string or as a list of `{text}` parts (Mistral nests thinking so). */
function partText(value: unknown): string {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) return "";
  return value
    .filter(isObject)
    .map((item) => (typeof item.text === "string" ? item.text : ""))
    .join("");
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
