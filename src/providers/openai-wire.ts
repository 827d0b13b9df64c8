// The OpenAI Chat Completions request body, translated from nex's messages.
import type { Message, ModelRequest, ToolCall } from "../protocol/index.ts";
import { isObject, parseToolArguments } from "./arguments.ts";
import { historyName } from "./history-name.ts";

/** Which field carries the output limit: most servers take `max_tokens`; newer OpenAI models want the other. */
export type MaxTokensField = "max_tokens" | "max_completion_tokens";

/** Options that shape the body. */
export interface OpenAIBodyOptions {
  stream: boolean;
  maxTokensField: MaxTokensField;
}

/** The request body as an object (see `openaiBodyText` for the JSON that is sent). */
export function openaiBody(
  request: ModelRequest,
  options: OpenAIBodyOptions,
): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [];
  if (request.system) messages.push({ role: "system", content: request.system });
  for (const message of request.messages) messages.push(openaiMessage(message));
  return {
    model: request.model,
    messages,
    ...(request.tools.length > 0 ? { tools: openaiTools(request.tools) } : {}),
    [options.maxTokensField]: request.maxTokens,
    ...(request.reasoning ? { reasoning_effort: request.reasoning.effort } : {}),
    stream: options.stream,
    ...(options.stream ? { stream_options: { include_usage: true } } : {}),
  };
}

// A session sends its whole history with every request, so each message's wire JSON is made once
// and kept: messages are values (nothing changes one after it is made), and tools are one array per
// host. Without this, a long session re-translates and re-serialises every message on every request.
const messageJson = new WeakMap<Message, string>();
const toolsJson = new WeakMap<ModelRequest["tools"], string>();

/**
 * The request body as JSON text: byte for byte `JSON.stringify(openaiBody(request, options))`, built
 * from the cached JSON of each message and of the tools.
 */
export function openaiBodyText(request: ModelRequest, options: OpenAIBodyOptions): string {
  const messages: string[] = [];
  if (request.system) messages.push(JSON.stringify({ role: "system", content: request.system }));
  for (const message of request.messages) {
    let json = messageJson.get(message);
    if (json === undefined) {
      json = JSON.stringify(openaiMessage(message));
      messageJson.set(message, json);
    }
    messages.push(json);
  }
  let tools = "";
  if (request.tools.length > 0) {
    tools = toolsJson.get(request.tools) ?? "";
    if (!tools) {
      tools = JSON.stringify(openaiTools(request.tools));
      toolsJson.set(request.tools, tools);
    }
  }
  // The fields after `messages`, in the order openaiBody gives them.
  const tail = JSON.stringify({
    [options.maxTokensField]: request.maxTokens,
    ...(request.reasoning ? { reasoning_effort: request.reasoning.effort } : {}),
    stream: options.stream,
    ...(options.stream ? { stream_options: { include_usage: true } } : {}),
  });
  return (
    `{"model":${JSON.stringify(request.model)},"messages":[${messages.join(",")}]` +
    `${tools ? `,"tools":${tools}` : ""},${tail.slice(1)}`
  );
}

function openaiTools(tools: ModelRequest["tools"]): Record<string, unknown>[] {
  return tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
    },
  }));
}

function openaiMessage(message: Message): Record<string, unknown> {
  switch (message.type) {
    case "user":
      return { role: "user", content: message.text };
    case "tool_result":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
    case "assistant": {
      if (message.toolCalls.length === 0) return { role: "assistant", content: message.text };
      return {
        role: "assistant",
        content: message.text === "" ? null : message.text,
        // DeepSeek's thinking mode answers 400 without it on a tool-call turn; sent only to the
        // servers that sent it.
        ...(message.replay?.reasoningContent
          ? { reasoning_content: message.replay.reasoningContent }
          : {}),
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: historyName(call.name), arguments: historyArguments(call) },
        })),
      };
    }
  }
}

/**
 * Argument text as sent back in history. Servers that parse history (llama.cpp) reject a request
 * holding invalid JSON, so a poisoned call kept in history is sent as "{}": its tool result already
 * tells the model what happened. A lossless recovery is sent as the object it yielded.
 */
export function historyArguments(call: ToolCall): string {
  const parsed = parseToolArguments(call.argumentsText);
  if (parsed.type === "refused" || !isObject(parsed.value)) return "{}";
  return parsed.recovery === "strict" ? call.argumentsText : JSON.stringify(parsed.value);
}
