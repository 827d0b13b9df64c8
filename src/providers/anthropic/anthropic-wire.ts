// The Anthropic Messages request body, translated from nex's messages.
import type { ImagePart, Message, ModelRequest } from "../../protocol/index.ts";
import { historyName } from "../history-name.ts";
import { isObject, parseToolArguments } from "../turns/index.ts";
import { conversationBreakpoints, markBlock, markJson } from "./anthropic-cache.ts";
import { thinkingOf } from "./thinking-budget.ts";

type Block = Record<string, unknown>;
interface WireMessage {
  role: "user" | "assistant";
  content: Block[];
}

// Each message's blocks are made and serialised once (messages are values; see openai-wire.ts).
const blocksJson = new WeakMap<Message, { role: WireMessage["role"]; blocks: string[] }>();
const toolsJson = new WeakMap<ModelRequest["tools"], string>();

/** The request body as JSON text: byte for byte `JSON.stringify(anthropicBody(request, options))`. */
export function anthropicBodyText(request: ModelRequest, options: { stream: boolean }): string {
  const wireMessages: { role: WireMessage["role"]; blocks: string[] }[] = [];
  let role: WireMessage["role"] | null = null;
  let blocks: string[] = [];
  const flush = () => {
    if (role !== null) wireMessages.push({ role, blocks });
  };
  for (const message of request.messages) {
    let wire = blocksJson.get(message);
    if (!wire) {
      const made = messageBlocks(message);
      wire = { role: made.role, blocks: made.blocks.map((block) => JSON.stringify(block)) };
      blocksJson.set(message, wire);
    }
    if (wire.blocks.length === 0) continue;
    if (wire.role === role) {
      blocks.push(...wire.blocks);
      continue;
    }
    flush();
    role = wire.role;
    blocks = [...wire.blocks];
  }
  flush();
  // Breakpoints on copies: the cached JSON of each message stays as it was made.
  for (const [m, b] of conversationBreakpoints(wireMessages)) {
    const message = wireMessages[m] as (typeof wireMessages)[number];
    message.blocks = message.blocks.map((json, i) => (i === b ? markJson(json) : json));
  }
  const messages = wireMessages.map(
    (message) => `{"role":"${message.role}","content":[${message.blocks.join(",")}]}`,
  );
  let tools = "";
  if (request.tools.length > 0) {
    tools = toolsJson.get(request.tools) ?? "";
    if (!tools) {
      tools = JSON.stringify(anthropicTools(request.tools));
      toolsJson.set(request.tools, tools);
    }
  }
  // The stable prefix ends with the system prompt, or with the tools when there is none.
  if (tools && !request.system) tools = `${markJson(tools.slice(0, -1))}]`;
  const thinking = thinkingOf(request);
  return (
    `{"model":${JSON.stringify(request.model)},"max_tokens":${JSON.stringify(request.maxTokens)}` +
    `${thinking ? `,"thinking":${JSON.stringify(thinking)}` : ""}` +
    `${request.system ? `,"system":${JSON.stringify(systemBlocks(request.system))}` : ""}` +
    `,"messages":[${messages.join(",")}]${tools ? `,"tools":${tools}` : ""},"stream":${JSON.stringify(options.stream)}}`
  );
}

/** The system prompt as one text block ending the stable prefix. */
function systemBlocks(system: string): Block[] {
  return [markBlock({ type: "text", text: system })];
}

function anthropicTools(tools: ModelRequest["tools"]): Record<string, unknown>[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters,
  }));
}

/** The request body as an object (see `anthropicBodyText` for the JSON that is sent). */
export function anthropicBody(
  request: ModelRequest,
  options: { stream: boolean },
): Record<string, unknown> {
  const thinking = thinkingOf(request);
  const messages = anthropicMessages(request.messages);
  const positions = conversationBreakpoints(
    messages.map((m) => ({ role: m.role, blocks: m.content.map((b) => JSON.stringify(b)) })),
  );
  for (const [m, b] of positions) {
    const content = messages[m]?.content as Block[];
    content[b] = markBlock(content[b] as Block);
  }
  const tools = anthropicTools(request.tools);
  const last = tools.length - 1;
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    ...(thinking ? { thinking } : {}),
    ...(request.system ? { system: systemBlocks(request.system) } : {}),
    messages,
    ...(tools.length > 0
      ? { tools: request.system ? tools : tools.map((t, i) => (i === last ? markBlock(t) : t)) }
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
    const { role, blocks } = messageBlocks(message);
    push(role, blocks);
  }
  return out;
}

/** The role and content blocks of one message; tool results travel in user messages. */
function messageBlocks(message: Message): { role: WireMessage["role"]; blocks: Block[] } {
  switch (message.type) {
    case "user":
      return {
        role: "user",
        blocks: [
          ...(message.text === "" ? [] : [{ type: "text", text: message.text }]),
          ...(message.images ?? []).map(imageBlock),
        ],
      };
    case "tool_result":
      return {
        role: "user",
        blocks: [
          {
            type: "tool_result",
            tool_use_id: message.toolCallId,
            content:
              message.images && message.images.length > 0
                ? [{ type: "text", text: message.content }, ...message.images.map(imageBlock)]
                : message.content,
            ...(message.isError ? { is_error: true } : {}),
          },
        ],
      };
    case "assistant": {
      const toolUse = (call: (typeof message.toolCalls)[number]): Block => ({
        type: "tool_use",
        id: call.id,
        name: historyName(call.name),
        input: historyInput(call.argumentsText),
      });
      const kept = message.replay?.anthropicBlocks;
      if (kept) {
        // The blocks as they came (thinking with its signature, server blocks), each tool_use
        // placeholder filled with the call as nex kept it.
        const calls = [...message.toolCalls];
        const blocks = kept.map((block) => {
          if (block.type !== "tool_use") return block;
          const call = calls.shift();
          return call ? toolUse(call) : null;
        });
        return {
          role: "assistant",
          blocks: [...blocks.filter((b): b is Block => b !== null), ...calls.map(toolUse)],
        };
      }
      const blocks: Block[] = message.text === "" ? [] : [{ type: "text", text: message.text }];
      for (const call of message.toolCalls) blocks.push(toolUse(call));
      return { role: "assistant", blocks };
    }
  }
}

/** An image as a Messages content block with a base64 source. */
function imageBlock(image: ImagePart): Block {
  return {
    type: "image",
    source: { type: "base64", media_type: image.mediaType, data: image.data },
  };
}

/** `input` must be an object: a poisoned call kept in history is sent as {} (its result says why). */
function historyInput(argumentsText: string): Record<string, unknown> {
  const parsed = parseToolArguments(argumentsText);
  return parsed.type === "parsed" && isObject(parsed.value) ? parsed.value : {};
}
