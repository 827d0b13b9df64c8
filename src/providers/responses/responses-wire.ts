// The OpenAI Responses API request body (`POST /v1/responses`), translated from nex's messages.
// nex keeps the conversation itself: `store: false`, so nothing of it stays on the server, and a
// reasoning model's reasoning goes back as the encrypted content it came with (OpenAI's reasoning
// guide: `include: ["reasoning.encrypted_content"]` with `store: false`). Items go back without
// their ids: with nothing stored an id refers to nothing, and some servers refuse one.
import type { ImagePart, Message, ModelRequest, ToolCall } from "../../protocol/index.ts";
import { historyName } from "../history-name.ts";
import { forEachWireMessage, historyArguments, TOOL_IMAGES_NOTE } from "../openai/index.ts";

type Item = Record<string, unknown>;

// OpenAI's reasoning families (o1, o3, o4-mini, gpt-5, codex), also behind a gateway's `openai/`
// prefix. Only they make encrypted reasoning; other models refuse the `include` ("Encrypted content
// is not supported with this model"), and local servers send their reasoning as text instead.
// `gpt-5-chat-latest` is not a reasoning model.
const ENCRYPTED_REASONING = /(^|[/:])(o[1-9]|gpt-5|codex)(?!.*chat)/i;

/** Whether a request for this model asks for its reasoning back as encrypted content. */
export function wantsEncryptedReasoning(model: string): boolean {
  return ENCRYPTED_REASONING.test(model);
}

// Each message's items are made and serialised once (messages are values; see openai-wire.ts).
const itemsJson = new WeakMap<Message, string[]>();
const toolsJson = new WeakMap<ModelRequest["tools"], string>();

/** The request body as JSON text: byte for byte `JSON.stringify(responsesBody(request, options))`. */
export function responsesBodyText(request: ModelRequest, options: { stream: boolean }): string {
  const input: string[] = [];
  forEachWireMessage(
    request.messages,
    (message) => {
      let json = itemsJson.get(message);
      if (json === undefined) {
        json = messageItems(message).map((item) => JSON.stringify(item));
        itemsJson.set(message, json);
      }
      input.push(...json);
    },
    (images) => input.push(JSON.stringify(toolImagesItem(images))),
  );
  let tools = "";
  if (request.tools.length > 0) {
    tools = toolsJson.get(request.tools) ?? "";
    if (!tools) {
      tools = JSON.stringify(responsesTools(request.tools));
      toolsJson.set(request.tools, tools);
    }
  }
  const tail = JSON.stringify(bodyTail(request, options));
  return (
    `{"model":${JSON.stringify(request.model)}` +
    `${request.system ? `,"instructions":${JSON.stringify(request.system)}` : ""}` +
    `,"input":[${input.join(",")}]${tools ? `,"tools":${tools}` : ""},${tail.slice(1)}`
  );
}

/** The request body as an object (see `responsesBodyText` for the JSON that is sent). */
export function responsesBody(
  request: ModelRequest,
  options: { stream: boolean },
): Record<string, unknown> {
  const input: Item[] = [];
  forEachWireMessage(
    request.messages,
    (message) => input.push(...messageItems(message)),
    (images) => input.push(toolImagesItem(images)),
  );
  return {
    model: request.model,
    ...(request.system ? { instructions: request.system } : {}),
    input,
    ...(request.tools.length > 0 ? { tools: responsesTools(request.tools) } : {}),
    ...bodyTail(request, options),
  };
}

// OpenAI refuses a `max_output_tokens` below 16 (`integer_below_min_value`). A smaller limit is sent
// as 16; the verdicts still judge the output against the limit nex asked for.
const MIN_OUTPUT_TOKENS = 16;

function bodyTail(request: ModelRequest, options: { stream: boolean }): Record<string, unknown> {
  return {
    max_output_tokens: Math.max(MIN_OUTPUT_TOKENS, request.maxTokens),
    ...(request.reasoning ? { reasoning: { effort: request.reasoning.effort } } : {}),
    store: false,
    ...(wantsEncryptedReasoning(request.model) ? { include: ["reasoning.encrypted_content"] } : {}),
    stream: options.stream,
  };
}

/**
 * Function tools. `strict` defaults to true on this API, which refuses any schema that does not list
 * every property as required and forbid the rest: nex's tools have optional parameters.
 */
function responsesTools(tools: ModelRequest["tools"]): Item[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  }));
}

function imageItem(image: ImagePart): Item {
  return { type: "input_image", image_url: `data:${image.mediaType};base64,${image.data}` };
}

function toolImagesItem(images: ImagePart[]): Item {
  return {
    role: "user",
    content: [{ type: "input_text", text: TOOL_IMAGES_NOTE }, ...images.map(imageItem)],
  };
}

function callItem(call: ToolCall): Item {
  return {
    type: "function_call",
    call_id: call.id,
    name: historyName(call.name),
    arguments: historyArguments(call),
  };
}

/** The input items of one message: a turn may be several (reasoning, text, calls). */
function messageItems(message: Message): Item[] {
  switch (message.type) {
    case "user":
      if (!message.images || message.images.length === 0)
        return [{ role: "user", content: message.text }];
      return [
        {
          role: "user",
          content: [
            ...(message.text === "" ? [] : [{ type: "input_text", text: message.text }]),
            ...message.images.map(imageItem),
          ],
        },
      ];
    case "tool_result":
      return [
        { type: "function_call_output", call_id: message.toolCallId, output: message.content },
      ];
    case "assistant": {
      const kept = message.replay?.responsesItems;
      if (kept) {
        // The items as they came (reasoning first), each function_call placeholder filled with the
        // call as nex kept it.
        const calls = [...message.toolCalls];
        const items = kept.map((item) => {
          if (item.type !== "function_call") return item;
          const call = calls.shift();
          return call ? callItem(call) : null;
        });
        return [...items.filter((item): item is Item => item !== null), ...calls.map(callItem)];
      }
      return [
        ...(message.text === "" ? [] : [{ role: "assistant", content: message.text }]),
        ...message.toolCalls.map(callItem),
      ];
    }
  }
}
