// Anthropic Messages over node:http (http-client.ts) + eventsource-parser: message_start, content_block_start/delta/stop,
// message_delta (stop_reason, usage.output_tokens), message_stop. A tool input that does not parse
// is a poisoned call (never null, never {}).
import type { ProviderEvent, StreamFn, Usage } from "../../protocol/index.ts";
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
import { createBlockCollector, startThinking } from "./anthropic-blocks.ts";
import { anthropicBodyText } from "./anthropic-wire.ts";

/** Options of the Anthropic client. */
export interface AnthropicClientOptions extends ClientOptions {
  /** Stream the response (default true). */
  stream?: boolean;
  /** Default `2023-06-01`. */
  version?: string;
}

export function createAnthropicClient(options: AnthropicClientOptions): StreamFn {
  const streaming = options.stream ?? true;
  return createWireClient(options, {
    wire: "anthropic",
    url: `${trimSlash(options.baseUrl).replace(/\/v1$/, "")}/v1/messages`,
    streaming,
    auth: options.apiKey ? { "x-api-key": options.apiKey } : {},
    headers: { "anthropic-version": options.version ?? "2023-06-01" },
    keyName: "ANTHROPIC_API_KEY (or the provider's key setting)",
    body: (request) => anthropicBodyText(request, { stream: streaming }),
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
  // A tool_use block may carry its whole input in content_block_start and send no delta.
  const startInput = new Map<number, string>();
  const sawDelta = new Set<number>();
  const blocks = createBlockCollector();
  const text = createTextJoiner();
  try {
    for await (const event of sseEvents(chunks)) {
      const data = eventJson(event);
      if (!isObject(data)) continue;
      const index = typeof data.index === "number" ? data.index : 0;
      if (data.type === "message_start") {
        const message = isObject(data.message) ? data.message : {};
        if (isObject(message.usage)) assembler.setUsage(usageOf(message.usage));
      } else if (data.type === "content_block_start") {
        const block = isObject(data.content_block) ? data.content_block : {};
        const kind = blocks.start(index, block);
        if (kind === "server") assembler.addServerContent(JSON.stringify(block).length);
        yield* openBlock(kind, block, text, assembler);
        if (kind === "tool_use") {
          const name = typeof block.name === "string" ? block.name : "";
          assembler.addCallDelta(index, {
            id: typeof block.id === "string" ? block.id : null,
            name,
          });
          if (isObject(block.input) && Object.keys(block.input).length > 0) {
            startInput.set(index, JSON.stringify(block.input));
          }
          yield { type: "tool_call_delta", index, name: name || null, argumentsDelta: "" };
        }
      } else if (data.type === "content_block_delta") {
        const delta = isObject(data.delta) ? data.delta : {};
        const kind = blocks.kindOf(index);
        if (kind === "tool_use") {
          if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") {
            sawDelta.add(index);
            assembler.addCallDelta(index, { argumentsText: delta.partial_json });
            yield {
              type: "tool_call_delta",
              index,
              name: null,
              argumentsDelta: delta.partial_json,
            };
          }
        } else {
          const thought = blocks.delta(index, delta);
          // A server tool's input and a thinking signature are output too: progress, and bounded.
          for (const key of ["partial_json", "signature"] as const) {
            const unshown = delta[key];
            if (typeof unshown === "string") assembler.addUnshown(unshown.length);
          }
          if (thought) {
            assembler.addReasoning(thought);
            yield { type: "reasoning_delta", text: thought };
          }
          if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text !== "") {
            yield* text.add(delta.text, assembler);
          }
        }
      } else if (data.type === "content_block_stop") {
        const prefilled = startInput.get(index);
        if (prefilled !== undefined && !sawDelta.has(index)) {
          assembler.addCallDelta(index, { argumentsText: prefilled });
          yield { type: "tool_call_delta", index, name: null, argumentsDelta: prefilled };
        }
        blocks.stop(index);
        if (blocks.kindOf(index) === "tool_use") assembler.closeCall(index);
      } else if (data.type === "message_delta") {
        const delta = isObject(data.delta) ? data.delta : {};
        if (typeof delta.stop_reason === "string") assembler.setStopReason(delta.stop_reason);
        if (isObject(data.usage)) assembler.setUsage(usageOf(data.usage));
      } else if (data.type === "message_stop") {
        assembler.markTerminated();
        break;
      } else if (data.type === "error") {
        const error = inBodyError(data, context);
        if (!assembler.hasOutput()) return { type: "failed", error };
        assembler.markDropped(
          `the endpoint reported an error mid-stream: ${serverMessageOf(JSON.stringify(data))}`,
        );
        break;
      }
      if (assembler.isCut()) break;
    }
  } catch (error) {
    if (!(error instanceof StreamFailure) || error.kind === "aborted" || !assembler.hasOutput())
      throw error;
    assembler.markDropped(error.message);
  }
  const replay = blocks.replay();
  if (replay) assembler.setReplay({ anthropicBlocks: replay });
  return finishStream(assembler, context);
}

async function* readWhole(
  chunks: AsyncIterable<Uint8Array>,
  assembler: TurnAssembler,
  context: FailureContext,
): AsyncGenerator<ProviderEvent, ReadOutcome> {
  const body = await readJsonObject(chunks, context);
  if (body.type === "failed") return body;
  const parsed = body.value;
  if (parsed.type === "error") return { type: "failed", error: inBodyError(parsed, context) };
  const content = Array.isArray(parsed.content) ? parsed.content.filter(isObject) : [];
  const blocks = createBlockCollector();
  const text = createTextJoiner();
  for (const [index, block] of content.entries()) {
    const kind = blocks.start(index, block);
    yield* openBlock(kind, block, text, assembler);
    if (kind === "tool_use") {
      const name = typeof block.name === "string" ? block.name : "";
      const input = block.input === undefined ? "" : JSON.stringify(block.input);
      assembler.addCallDelta(index, {
        id: typeof block.id === "string" ? block.id : null,
        name,
        argumentsText: input,
      });
      yield { type: "tool_call_delta", index, name: name || null, argumentsDelta: input };
    }
  }
  const replay = blocks.replay();
  if (replay) assembler.setReplay({ anthropicBlocks: replay });
  if (typeof parsed.stop_reason === "string") assembler.setStopReason(parsed.stop_reason);
  if (isObject(parsed.usage)) assembler.setUsage(usageOf(parsed.usage));
  assembler.markTerminated();
  return { type: "turn", turn: assembler.finish() };
}

/** The start of a text or thinking block, streamed or whole: its opening text, or its reasoning. */
function* openBlock(
  kind: string,
  block: Record<string, unknown>,
  text: ReturnType<typeof createTextJoiner>,
  assembler: TurnAssembler,
): Generator<ProviderEvent> {
  text.block(kind);
  if (kind === "text" && typeof block.text === "string" && block.text !== "") {
    yield* text.add(block.text, assembler);
  } else if (kind === "thinking") {
    const thought = startThinking(block);
    if (!thought) return;
    assembler.addReasoning(thought);
    yield { type: "reasoning_delta", text: thought };
  }
}

/**
 * Text blocks joined into the answer. Consecutive text blocks (citations split one sentence into
 * several) join as they are; text after a server or tool block starts a new paragraph, or the words
 * on either side of a web search would run together.
 */
function createTextJoiner() {
  let sawText = false;
  let afterOther = false;
  let lastChar = "";
  return {
    block(kind: string) {
      if (kind !== "text") afterOther = true;
    },
    *add(piece: string, assembler: TurnAssembler): Generator<ProviderEvent> {
      let out = piece;
      if (sawText && afterOther && !/\s$/.test(lastChar) && !/^\s/.test(piece))
        out = `\n\n${piece}`;
      afterOther = false;
      sawText = true;
      lastChar = out.slice(-1);
      assembler.addText(out);
      yield { type: "text_delta", text: out };
    },
  };
}

/**
 * Input counts cached prompt tokens too: they occupy the context window all the same. When the
 * server ran its own tools (web search, code execution) the input counts every one of its
 * iterations, not the prompt's size: it is left out (the stream's message_start still gives it).
 */
function usageOf(usage: Record<string, unknown>): Partial<Usage> {
  const out: Partial<Usage> = {};
  if (typeof usage.output_tokens === "number") out.outputTokens = usage.output_tokens;
  if (ranServerTools(usage.server_tool_use)) return out;
  if (typeof usage.cache_read_input_tokens === "number")
    out.cacheReadTokens = usage.cache_read_input_tokens;
  if (typeof usage.cache_creation_input_tokens === "number")
    out.cacheWriteTokens = usage.cache_creation_input_tokens;
  const input = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]
    .map((key) => usage[key])
    .filter((value): value is number => typeof value === "number");
  if (input.length > 0) out.inputTokens = input.reduce((sum, value) => sum + value, 0);
  return out;
}

function ranServerTools(counts: unknown): boolean {
  return isObject(counts) && Object.values(counts).some((n) => typeof n === "number" && n > 0);
}
