// Anthropic Messages over node:http (http-client.ts) + eventsource-parser: message_start, content_block_start/delta/stop,
// message_delta (stop_reason, usage.output_tokens), message_stop. A tool input that does not parse
// is a poisoned call (never null, never {}).
import type { ProviderEvent, StreamFn } from "../protocol/index.ts";
import { anthropicBodyText } from "./anthropic-wire.ts";
import { isObject } from "./arguments.ts";
import type { TurnAssembler } from "./assembler.ts";
import { type ClientOptions, trimSlash } from "./client-config.ts";
import { type FailureContext, inBodyError, serverMessageOf } from "./errors.ts";
import { eventJson, sseEvents } from "./sse.ts";
import { type ReadOutcome, StreamFailure } from "./transport.ts";
import { createWireClient, finishStream, readJsonObject } from "./wire-client.ts";

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
        if (block.type === "text" && typeof block.text === "string" && block.text !== "") {
          assembler.addText(block.text);
          yield { type: "text_delta", text: block.text };
        } else if (block.type === "tool_use") {
          const name = typeof block.name === "string" ? block.name : "";
          assembler.addCallDelta(index, {
            id: typeof block.id === "string" ? block.id : null,
            name,
          });
          if (isObject(block.input) && Object.keys(block.input).length > 0) {
            startInput.set(index, JSON.stringify(block.input));
          }
          yield { type: "tool_call_delta", index, name: name || null, argumentsDelta: "" };
        } else {
          assembler.addReasoning(thinkingOf(block));
        }
      } else if (data.type === "content_block_delta") {
        const delta = isObject(data.delta) ? data.delta : {};
        if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text !== "") {
          assembler.addText(delta.text);
          yield { type: "text_delta", text: delta.text };
        } else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") {
          sawDelta.add(index);
          assembler.addCallDelta(index, { argumentsText: delta.partial_json });
          yield { type: "tool_call_delta", index, name: null, argumentsDelta: delta.partial_json };
        } else {
          assembler.addReasoning(thinkingOf(delta));
        }
      } else if (data.type === "content_block_stop") {
        const prefilled = startInput.get(index);
        if (prefilled !== undefined && !sawDelta.has(index)) {
          assembler.addCallDelta(index, { argumentsText: prefilled });
          yield { type: "tool_call_delta", index, name: null, argumentsDelta: prefilled };
        }
        assembler.closeCall(index);
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
      if (assembler.isOverrun()) break;
    }
  } catch (error) {
    if (!(error instanceof StreamFailure) || error.kind === "aborted" || !assembler.hasOutput())
      throw error;
    assembler.markDropped(error.message);
  }
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
  const blocks = Array.isArray(parsed.content) ? parsed.content.filter(isObject) : [];
  for (const [index, block] of blocks.entries()) {
    if (block.type === "text" && typeof block.text === "string" && block.text !== "") {
      assembler.addText(block.text);
      yield { type: "text_delta", text: block.text };
    } else if (block.type === "tool_use") {
      const name = typeof block.name === "string" ? block.name : "";
      const input = block.input === undefined ? "" : JSON.stringify(block.input);
      assembler.addCallDelta(index, {
        id: typeof block.id === "string" ? block.id : null,
        name,
        argumentsText: input,
      });
      yield { type: "tool_call_delta", index, name: name || null, argumentsDelta: input };
    } else {
      assembler.addReasoning(thinkingOf(block));
    }
  }
  if (typeof parsed.stop_reason === "string") assembler.setStopReason(parsed.stop_reason);
  if (isObject(parsed.usage)) assembler.setUsage(usageOf(parsed.usage));
  assembler.markTerminated();
  return { type: "turn", turn: assembler.finish() };
}

/** Input counts cached prompt tokens too: they occupy the context window all the same. */
function usageOf(usage: Record<string, unknown>): { inputTokens?: number; outputTokens?: number } {
  const out: { inputTokens?: number; outputTokens?: number } = {};
  const input = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]
    .map((key) => usage[key])
    .filter((value): value is number => typeof value === "number");
  if (input.length > 0) out.inputTokens = input.reduce((sum, value) => sum + value, 0);
  if (typeof usage.output_tokens === "number") out.outputTokens = usage.output_tokens;
  return out;
}

/** Thinking text of a block or delta (`thinking`, `signature`, redacted `data`): output the model spent. */
function thinkingOf(part: Record<string, unknown>): string {
  let text = "";
  for (const key of ["thinking", "signature", "data"]) {
    const value = part[key];
    if (typeof value === "string") text += value;
  }
  return text;
}
