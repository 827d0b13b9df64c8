// OpenAI Responses API (`POST /v1/responses`: OpenAI's newer models and Codex, and the LM Studio,
// vLLM and Ollama servers that serve it) over node:http (http-client.ts) + eventsource-parser.
// A function call is whole only when its item ended `completed` (`response.output_item.done`) and the
// response did (`response.completed`); `response.incomplete` (`max_output_tokens`) cuts its calls,
// `error` and `response.failed` end the response, and the verdicts of verdict.ts apply as on the
// other wires. Reasoning (summaries, or reasoning text) is shown apart and never joins the answer.
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
} from "../http/index.ts";
import type { TurnAssembler } from "../turns/index.ts";
import { isObject } from "../turns/index.ts";
import { createWireClient, finishStream, readJsonObject } from "../wire-client.ts";
import { createItemIndex, type ItemIndex, type ItemState } from "./responses-item-index.ts";
import {
  callIdOf,
  createItemCollector,
  outputText,
  reasoningText,
  refusalText,
} from "./responses-items.ts";
import { responsesBodyText } from "./responses-wire.ts";

type Json = Record<string, unknown>;

/** Options of the Responses API client. */
export interface ResponsesClientOptions extends ClientOptions {
  /** Stream the response (default true). */
  stream?: boolean;
}

export function createResponsesClient(options: ResponsesClientOptions): StreamFn {
  const streaming = options.stream ?? true;
  return createWireClient(options, {
    wire: "responses",
    url: `${trimSlash(options.baseUrl)}/responses`,
    streaming,
    auth: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    headers: {},
    keyName: "the API key (OPENAI_API_KEY or the provider's key setting)",
    body: (request) => responsesBodyText(request, { stream: streaming }),
    readStream,
    readWhole,
    explicitClose: true,
  });
}

async function* readStream(
  chunks: AsyncIterable<Uint8Array>,
  assembler: TurnAssembler,
  context: FailureContext,
): AsyncGenerator<ProviderEvent, ReadOutcome> {
  const items = createItemIndex();
  const { indexOf, stateOf } = items;
  const collector = createItemCollector();
  const text = createTextJoiner(assembler);
  let unreadable: string | null = null;
  try {
    for await (const event of sseEvents(chunks)) {
      const data = eventJson(event);
      if (!isObject(data) || typeof data.type !== "string") {
        if (event.data.trim() !== "[DONE]") unreadable ??= event.data.slice(0, 80);
        continue;
      }
      const type = data.type;
      if (type === "response.output_item.added" || type === "response.output_item.done") {
        const item = isObject(data.item) ? data.item : {};
        const index = indexOf(data, item.id);
        const state = stateOf(index);
        if (type === "response.output_item.added") {
          if (item.type === "function_call") {
            const callId = callIdOf(item);
            if (callId !== null) items.indexOfCall.set(callId, index);
            yield* openCall(index, item, assembler);
          }
          continue;
        }
        items.ended.add(index);
        collector.done(index, item);
        yield* closeItem(index, item, state, assembler, text);
      } else if (type === "response.output_text.delta" || type === "response.refusal.delta") {
        const delta = typeof data.delta === "string" ? data.delta : "";
        const index = indexOf(data);
        stateOf(index).streamed = true;
        if (type === "response.refusal.delta") assembler.addRefusal(delta);
        else yield* text.add(index, delta);
      } else if (
        type === "response.reasoning_summary_text.delta" ||
        type === "response.reasoning_text.delta"
      ) {
        yield* reasoningDelta(stateOf(indexOf(data)), data, assembler);
      } else if (type === "response.function_call_arguments.delta") {
        const index = indexOf(data);
        const delta = typeof data.delta === "string" ? data.delta : "";
        const state = stateOf(index);
        state.streamed = true;
        state.args.push(delta);
        assembler.addCallDelta(index, { argumentsText: delta });
        yield { type: "tool_call_delta", index, name: null, argumentsDelta: delta };
      } else if (type === "response.function_call_arguments.done") {
        // The whole arguments: a check on the deltas, or the arguments of a server that sent none.
        const index = indexOf(data);
        yield* wholeArguments(index, data.arguments, stateOf(index), assembler);
      } else if (type === "response.completed" || type === "response.incomplete") {
        const response = isObject(data.response) ? data.response : {};
        yield* finalCalls(response, items, collector, text, assembler);
        endResponse(response, assembler);
        break;
      } else if (type === "response.failed" || type === "error") {
        const error = failureOf(data, context);
        if (!assembler.hasOutput()) return { type: "failed", error };
        assembler.markDropped(`the endpoint reported an error mid-stream: ${failureWords(data)}`);
        break;
      }
      if (assembler.isCut()) break;
    }
  } catch (error) {
    if (!(error instanceof StreamFailure) || error.kind === "aborted" || !assembler.hasOutput())
      throw error;
    assembler.markDropped(error.message);
  }
  yield* assembler.endContent();
  const replay = collector.replay();
  if (replay) assembler.setReplay({ responsesItems: replay });
  if (unreadable !== null && !assembler.hasOutput() && !assembler.isTerminated()) {
    return { type: "failed", error: unreadableStream(context, unreadable) };
  }
  return finishStream(assembler, context);
}

/**
 * A call a server ended only in the final response, with no `output_item.done` of its own: the final
 * response's word on it (its status, its arguments) is as good.
 */
function* finalCalls(
  response: Json,
  items: ItemIndex,
  collector: ReturnType<typeof createItemCollector>,
  text: TextJoiner,
  assembler: TurnAssembler,
): Generator<ProviderEvent> {
  const output = Array.isArray(response.output) ? response.output.filter(isObject) : [];
  for (const item of output) {
    if (item.type !== "function_call") continue;
    const byCall = items.indexOfCall.get(callIdOf(item) ?? "");
    const known = byCall !== undefined || items.knows(item.id);
    const index =
      byCall ?? items.indexOf({ type: known ? "" : "response.output_item.added" }, item.id);
    if (items.ended.has(index)) continue;
    if (!known) yield* openCall(index, item, assembler);
    items.ended.add(index);
    collector.done(index, item);
    yield* closeItem(index, item, items.stateOf(index), assembler, text);
  }
}

/** Reasoning (a summary's or the reasoning text's delta); a new part is set apart by a blank line. */
function* reasoningDelta(
  state: ItemState,
  data: Json,
  assembler: TurnAssembler,
): Generator<ProviderEvent> {
  const part = Number(data.summary_index ?? data.content_index ?? 0);
  const delta = typeof data.delta === "string" ? data.delta : "";
  const thought = state.streamed && part !== state.part ? `\n\n${delta}` : delta;
  state.streamed = true;
  state.part = part;
  if (thought !== "") {
    assembler.addReasoning(thought);
    yield { type: "reasoning_delta", text: thought };
  }
}

/** A function call item starts: its call id and name (its arguments come as deltas, or at its end). */
function* openCall(index: number, item: Json, assembler: TurnAssembler): Generator<ProviderEvent> {
  const name = typeof item.name === "string" && item.name !== "" ? item.name : null;
  assembler.addCallDelta(index, { id: callIdOf(item), name });
  yield { type: "tool_call_delta", index, name, argumentsDelta: "" };
}

/**
 * An item ended. A call is closed only when its item says `completed`: an `incomplete` one was cut.
 * What a server sent only here, never as deltas (a call's arguments, an answer, reasoning), is read now.
 */
function* closeItem(
  index: number,
  item: Json,
  state: ItemState,
  assembler: TurnAssembler,
  text: TextJoiner,
): Generator<ProviderEvent> {
  if (item.type === "function_call") {
    const name = typeof item.name === "string" && item.name !== "" ? item.name : null;
    assembler.addCallDelta(index, { id: callIdOf(item), name });
    yield* wholeArguments(index, item.arguments, state, assembler);
    if (item.status === "completed" && !state.differs) assembler.closeCall(index);
  } else if (item.type === "message" && !state.streamed) {
    state.streamed = true;
    yield* text.add(index, outputText(item));
  } else if (item.type === "reasoning" && !state.streamed) {
    state.streamed = true;
    const thought = reasoningText(item);
    if (thought !== "") {
      assembler.addReasoning(thought);
      yield { type: "reasoning_delta", text: thought };
    }
  }
}

/**
 * A call's whole arguments as the server sends them at its end. Without deltas they are the
 * arguments; after deltas they must be the same text, or an event was lost on the way and the call
 * stays open (refused), with the reason told.
 */
function* wholeArguments(
  index: number,
  whole: unknown,
  state: ItemState,
  assembler: TurnAssembler,
): Generator<ProviderEvent> {
  if (typeof whole !== "string" || whole === "") return;
  if (!state.streamed) {
    state.streamed = true;
    state.args.push(whole);
    assembler.addCallDelta(index, { argumentsText: whole });
    yield { type: "tool_call_delta", index, name: null, argumentsDelta: whole };
  } else if (!state.differs && state.args.join("") !== whole) {
    state.differs = true;
    assembler.markDropped(
      `the arguments streamed for a tool call (${state.args.join("").length} characters) differ from the ${whole.length} the server sent whole at its end, so part of the stream was lost`,
    );
  }
}

/** The end of a response, streamed or whole: its status (or why it is incomplete) and usage. */
function endResponse(response: Json, assembler: TurnAssembler): void {
  const details = isObject(response.incomplete_details) ? response.incomplete_details : {};
  const reason =
    response.status === "incomplete" && typeof details.reason === "string"
      ? details.reason
      : typeof response.status === "string"
        ? response.status
        : null;
  assembler.setStopReason(reason);
  if (isObject(response.usage)) assembler.setUsage(usageOf(response.usage));
  assembler.markTerminated();
}

async function* readWhole(
  chunks: AsyncIterable<Uint8Array>,
  assembler: TurnAssembler,
  context: FailureContext,
): AsyncGenerator<ProviderEvent, ReadOutcome> {
  const body = await readJsonObject(chunks, context);
  if (body.type === "failed") return body;
  const parsed = body.value;
  if (parsed.status === "failed" || (isObject(parsed.error) && !Array.isArray(parsed.output)))
    return {
      type: "failed",
      error: failureOf({ type: "response.failed", response: parsed }, context),
    };
  const output = Array.isArray(parsed.output) ? parsed.output.filter(isObject) : [];
  const collector = createItemCollector();
  const text = createTextJoiner(assembler);
  for (const [index, item] of output.entries()) {
    collector.done(index, item);
    if (item.type === "function_call") {
      yield* openCall(index, item, assembler);
      const args = typeof item.arguments === "string" ? item.arguments : "";
      assembler.addCallDelta(index, { argumentsText: args });
      yield { type: "tool_call_delta", index, name: null, argumentsDelta: args };
    } else if (item.type === "message") {
      yield* text.add(index, outputText(item));
      const refusal = refusalText(item);
      if (refusal !== "") assembler.addRefusal(refusal);
    } else if (item.type === "reasoning") {
      const thought = reasoningText(item);
      if (thought !== "") {
        assembler.addReasoning(thought);
        yield { type: "reasoning_delta", text: thought };
      }
    }
  }
  yield* assembler.endContent();
  const replay = collector.replay();
  if (replay) assembler.setReplay({ responsesItems: replay });
  endResponse(parsed, assembler);
  return { type: "turn", turn: assembler.finish() };
}

type TextJoiner = ReturnType<typeof createTextJoiner>;

/**
 * The answer's text, item by item: a second message item (a model that comments between its calls)
 * starts a new paragraph, or the last word of one and the first of the next would run together.
 */
function createTextJoiner(assembler: TurnAssembler) {
  let item = -1;
  let lastChar = "";
  return {
    *add(index: number, piece: string): Generator<ProviderEvent> {
      if (piece === "") return;
      const apart = item !== -1 && index !== item && !/\s/.test(lastChar) && !/^\s/.test(piece);
      item = index;
      const out = apart ? `\n\n${piece}` : piece;
      lastChar = out.slice(-1);
      yield* assembler.addContent(out);
    },
  };
}

/**
 * An `error` event (its fields at the top, or under `error` as OpenAI sends it) or a failed response
 * (`response.error`), classified like the HTTP error it stands for: a rate limit is retried.
 */
function failureOf(data: Json, context: FailureContext): ProviderError {
  return inBodyError({ type: data.type, error: errorObjectOf(data) }, context);
}

function errorObjectOf(data: Json): Json {
  if (data.type === "error") {
    if (isObject(data.error)) return data.error;
    return { code: data.code, message: data.message, type: data.code };
  }
  const response = isObject(data.response) ? data.response : {};
  return isObject(response.error)
    ? response.error
    : { message: "the response failed without saying why" };
}

function failureWords(data: Json): string {
  return serverMessageOf(JSON.stringify({ error: errorObjectOf(data) }));
}

/** A stream whose events are not the Responses API's: another API, or a broken server. */
function unreadableStream(context: FailureContext, sample: string): ProviderError {
  return {
    code: "invalid_response",
    retryable: false,
    message: `${context.host} streamed events that are not Responses API events (first: ${JSON.stringify(sample)}), and no usable output. Check the base URL, and that the server speaks the Responses API; for Chat Completions remove "api": "responses" from the config.`,
  };
}

/** `input_tokens` counts the cached part too; `input_tokens_details.cached_tokens` names it. */
function usageOf(usage: Json): Partial<Usage> {
  const out: Partial<Usage> = {};
  if (typeof usage.input_tokens === "number") out.inputTokens = usage.input_tokens;
  if (typeof usage.output_tokens === "number") out.outputTokens = usage.output_tokens;
  const details = isObject(usage.input_tokens_details) ? usage.input_tokens_details : {};
  if (typeof details.cached_tokens === "number" && details.cached_tokens >= 0)
    out.cacheReadTokens = details.cached_tokens;
  return out;
}
