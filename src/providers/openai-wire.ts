// The OpenAI Chat Completions request body, translated from nex's messages.
import type { Message, ModelRequest, ToolCall } from "../protocol/index.ts";
import { isObject, parseToolArguments } from "./arguments.ts";

/** Which field carries the output limit: most servers take `max_tokens`; newer OpenAI models want the other. */
export type MaxTokensField = "max_tokens" | "max_completion_tokens";

/** Options that shape the body. */
export interface OpenAIBodyOptions {
  stream: boolean;
  maxTokensField: MaxTokensField;
}

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
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: "function",
            function: {
              name: tool.name,
              description: tool.description,
              parameters: tool.parameters,
            },
          })),
        }
      : {}),
    [options.maxTokensField]: request.maxTokens,
    stream: options.stream,
    ...(options.stream ? { stream_options: { include_usage: true } } : {}),
  };
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
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: historyArguments(call) },
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
