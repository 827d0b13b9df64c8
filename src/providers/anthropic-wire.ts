// The Anthropic Messages request body, translated from nex's messages.
import type { Message, ModelRequest } from "../protocol/index.ts";
import { isObject, parseToolArguments } from "./arguments.ts";

type Block = Record<string, unknown>;
interface WireMessage {
  role: "user" | "assistant";
  content: Block[];
}

export function anthropicBody(
  request: ModelRequest,
  options: { stream: boolean },
): Record<string, unknown> {
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    ...(request.system ? { system: request.system } : {}),
    messages: anthropicMessages(request.messages),
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            input_schema: tool.parameters,
          })),
        }
      : {}),
    stream: options.stream,
  };
}

/**
 * Roles must alternate and no message may be empty: tool results travel in user messages, and
 * neighbours of the same role are merged into one message of several blocks.
 */
export function anthropicMessages(messages: Message[]): WireMessage[] {
  const out: WireMessage[] = [];
  const push = (role: WireMessage["role"], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.type) {
      case "user":
        push("user", message.text === "" ? [] : [{ type: "text", text: message.text }]);
        break;
      case "tool_result":
        push("user", [
          {
            type: "tool_result",
            tool_use_id: message.toolCallId,
            content: message.content,
            ...(message.isError ? { is_error: true } : {}),
          },
        ]);
        break;
      case "assistant": {
        const blocks: Block[] = message.text === "" ? [] : [{ type: "text", text: message.text }];
        for (const call of message.toolCalls) {
          blocks.push({
            type: "tool_use",
            id: call.id,
            name: call.name,
            input: historyInput(call.argumentsText),
          });
        }
        push("assistant", blocks);
        break;
      }
    }
  }
  return out;
}

/** `input` must be an object: a poisoned call kept in history is sent as {} (its result says why). */
function historyInput(argumentsText: string): Record<string, unknown> {
  const parsed = parseToolArguments(argumentsText);
  return parsed.type === "parsed" && isObject(parsed.value) ? parsed.value : {};
}
