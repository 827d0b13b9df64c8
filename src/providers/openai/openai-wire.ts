// The OpenAI Chat Completions request body, translated from nex's messages.
import type {
  ImagePart,
  Message,
  ModelRequest,
  ToolCall,
  UserMessage,
} from "../../protocol/index.ts";
import { historyName } from "../history-name.ts";
import { isObject, parseToolArguments } from "../turns/index.ts";

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
  forEachWireMessage(
    request.messages,
    (message) => messages.push(openaiMessage(message)),
    (images) => messages.push(toolImagesMessage(images)),
  );
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
  const list = request.messages;
  // Through the last assistant message the wire form is settled: no user run or tool images span it.
  let settled = list.length;
  while (settled > 0 && list[settled - 1]?.type !== "assistant") settled--;
  for (const json of [settledWire(list, settled), wireJson(list, settled, list.length)])
    if (json) messages.push(json);
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

// A session's conversation grows at its end: the JSON of its settled beginning (through the last
// assistant message) is kept per first message, and a request whose messages begin with the same
// ones (the same objects) sends it as it is, translating only what came after.
const settledJson = new WeakMap<Message, { refs: Message[]; json: string }>();

/** The wire JSON of `list[0..settled)`, from what the last request of this conversation sent. */
function settledWire(list: readonly Message[], settled: number): string {
  const first = list[0];
  if (first === undefined || settled === 0) return "";
  const known = settledJson.get(first);
  const same =
    known !== undefined &&
    known.refs.length <= settled &&
    known.refs.every((message, i) => message === list[i]);
  if (same && known.refs.length === settled) return known.json;
  const more = wireJson(list, same ? known.refs.length : 0, settled);
  // Joined with +, not copied: the body's own join writes the pieces out once.
  const json = same ? `${known.json},${more}` : more;
  settledJson.set(first, { refs: list.slice(0, settled), json });
  return json;
}

/** The wire JSON of `list[from..to)`, comma-separated; `to` follows an assistant message or ends it. */
function wireJson(list: readonly Message[], from: number, to: number): string {
  const parts: string[] = [];
  forEachWireMessage(
    list,
    (message) => {
      let json = messageJson.get(message);
      if (json === undefined) {
        json = JSON.stringify(openaiMessage(message));
        messageJson.set(message, json);
      }
      parts.push(json);
    },
    (images) => parts.push(JSON.stringify(toolImagesMessage(images))),
    from,
    to,
  );
  return parts.join(",");
}

/**
 * Visits the messages in wire order. Tool messages take only text, and nothing may come between the
 * tool messages that answer one turn: the images of those results follow them as one user message.
 * The Responses wire visits them the same way.
 */
export function forEachWireMessage(
  messages: readonly Message[],
  visit: (message: Message) => void,
  visitImages: (images: ImagePart[]) => void,
  from = 0,
  to = messages.length,
): void {
  let pending: ImagePart[] = [];
  for (let i = from; i < to; i++) {
    const message = messages[i] as Message;
    if (message.type !== "tool_result" && pending.length > 0) {
      visitImages(pending);
      pending = [];
    }
    if (message.type === "user" && i + 1 < to && messages[i + 1]?.type === "user") {
      // Chat Completions servers (llama.cpp's templates among them) reject or garble two user turns
      // in a row: a prompt whose request failed, a [nex] note of an undo or a `!command`, then the
      // next prompt, go as one user turn, as Anthropic's wire merges them.
      let end = i;
      while (end + 1 < to && messages[end + 1]?.type === "user") end++;
      visit(mergedUserRun(messages, i, end));
      i = end;
      continue;
    }
    visit(message);
    if (message.type === "tool_result" && message.images) pending.push(...message.images);
  }
  if (pending.length > 0) visitImages(pending);
}

// A run of user messages merged once: keyed by its first message, valid while its last is the same.
const mergedRuns = new WeakMap<Message, { last: Message; merged: UserMessage }>();

function mergedUserRun(messages: readonly Message[], start: number, end: number): UserMessage {
  const first = messages[start] as Message;
  const last = messages[end] as Message;
  const known = mergedRuns.get(first);
  if (known?.last === last) return known.merged;
  const run = messages.slice(start, end + 1) as UserMessage[];
  const images = run.flatMap((m) => m.images ?? []);
  const merged: UserMessage = {
    type: "user",
    text: run
      .map((m) => m.text)
      .filter((text) => text !== "")
      .join("\n\n"),
    ...(images.length > 0 ? { images } : {}),
  };
  mergedRuns.set(first, { last, merged });
  return merged;
}

/** The words that introduce the images of tool results, on every wire. */
export const TOOL_IMAGES_NOTE = "[nex] The images the tool results above returned:";

function toolImagesMessage(images: ImagePart[]): Record<string, unknown> {
  return {
    role: "user",
    content: [{ type: "text", text: TOOL_IMAGES_NOTE }, ...images.map(imagePart)],
  };
}

/** An image as a Chat Completions content part: a data URL. */
function imagePart(image: ImagePart): Record<string, unknown> {
  return { type: "image_url", image_url: { url: `data:${image.mediaType};base64,${image.data}` } };
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
      if (!message.images || message.images.length === 0)
        return { role: "user", content: message.text };
      return {
        role: "user",
        content: [
          ...(message.text === "" ? [] : [{ type: "text", text: message.text }]),
          ...message.images.map(imagePart),
        ],
      };
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
