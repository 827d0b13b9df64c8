/** A request for the model: the conversation so far and what it may call. */

/** A message in the conversation as nex keeps it; providers translate it to their wire format. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** Text the user (or nex on the user's behalf, e.g. a compaction summary) sent. */
export interface UserMessage {
  type: "user";
  text: string;
  /** Images sent with the text (a path typed in the prompt), for models that take images. */
  images?: ImagePart[];
}

/** The image formats every vision endpoint takes. */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/**
 * An image in the conversation: its bytes as base64, with what nex read from its header. In a journal
 * record `data` is empty and `ref` names the file under the session's images folder that holds them.
 */
export interface ImagePart {
  mediaType: ImageMediaType;
  data: string;
  width: number;
  height: number;
  /** Size of the file in bytes. */
  bytes: number;
  /** Where the journal keeps the bytes (`<sha256>.<ext>`), set once they are stored. */
  ref?: string;
}

/** One model turn: its text and the tool calls it asked for, with their raw argument text. */
export interface AssistantMessage {
  type: "assistant";
  text: string;
  toolCalls: ToolCall[];
  /** What this turn must send back to its endpoint, beyond text and calls (absent for most turns). */
  replay?: Replay;
}

/**
 * Wire content kept for history. `anthropicBlocks`: the content blocks in the order they came
 * (thinking with its signature unchanged, redacted thinking, server-side tool use and results);
 * `tool_use` blocks there are placeholders filled from `toolCalls`. `reasoningContent`: the
 * `reasoning_content` an OpenAI-wire server (DeepSeek) requires back on a tool-call turn.
 * `responsesItems`: a Responses API turn's output items in order (reasoning with its encrypted
 * content or text); `function_call` items there are placeholders filled from `toolCalls`.
 */
export interface Replay {
  anthropicBlocks?: Record<string, unknown>[];
  reasoningContent?: string;
  responsesItems?: Record<string, unknown>[];
}

/**
 * A tool call in the conversation: `argumentsText` is the exact text the model sent, never repaired,
 * or `{}` for a call nex refused (its tool result says what arrived and why).
 */
export interface ToolCall {
  id: string;
  name: string;
  argumentsText: string;
}

/** The answer to one tool call, dispatched or refused; every tool call gets exactly one. */
export interface ToolResultMessage {
  type: "tool_result";
  toolCallId: string;
  toolName: string;
  content: string;
  isError: boolean;
  /** Images the tool returned (`read_file` on an image), for models that take images. */
  images?: ImagePart[];
}

/** A JSON Schema object as published to the provider. */
export type JsonSchema = { [key: string]: unknown };

/** What the model is told about a tool. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
  /** A rarely used tool's few words in load_tools' listing on small windows (never sent as such). */
  brief?: string;
}

/** Everything a provider needs for one request. */
export interface ModelRequest {
  model: string;
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  /** The output limit sent to the endpoint; the integrity check compares usage against it. */
  maxTokens: number;
  /** Which request of the session this is, for events. */
  requestId: number;
  /** How hard the model should think; absent: the server's default (nothing is sent). */
  reasoning?: ReasoningRequest;
}

/** A reasoning effort, as OpenAI's `reasoning_effort` names them. */
export type ReasoningEffort = "low" | "medium" | "high";

/** What the runtime asks of a reasoning model for one request; each wire says it its own way. */
export interface ReasoningRequest {
  effort: ReasoningEffort;
  /** Anthropic's thinking budget when configured; else one follows from the effort. */
  budgetTokens?: number;
}
