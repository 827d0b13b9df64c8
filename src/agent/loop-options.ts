import type {
  AgentEvent,
  ImagePart,
  Message,
  PermissionAnswer,
  StreamFn,
  ToolHost,
} from "../protocol/index.ts";
import type { StopWords } from "./stop-words.ts";

/** How big a request may be; the runtime backs it with the model registry and the session budget. */
export interface RequestBudget {
  /** Tokens of the prompt this request would send. */
  estimatePrompt(system: string, messages: Message[]): number;
  /** The `max_tokens` to send so prompt plus output fits, or null when the prompt leaves no room. */
  maxTokensFor(promptTokens: number): number | null;
  /** The largest `max_tokens` the window and the model allow for this prompt. */
  largestMaxTokensFor(promptTokens: number): number;
  /** The endpoint stated the real window in an error body. */
  correctWindow(limit: number): void;
}

/**
 * Shrinks the conversation to fit, or returns null when it could not. Its own requests are shown
 * through the runtime's event fan-out, like every request.
 */
export type Compactor = (messages: Message[], signal: AbortSignal) => Promise<Message[] | null>;

/** Asks the user (through the UI) about a call; resolves with the answer. */
export type Approver = (
  request: { callId: string; name: string; summary: string },
  signal: AbortSignal,
) => Promise<PermissionAnswer>;

/** Everything one run of the loop needs; all of it passed in, nothing ambient. */
export interface LoopOptions {
  stream: StreamFn;
  tools: ToolHost;
  model: string;
  system: string;
  /** The conversation so far; the loop appends to it. */
  messages: Message[];
  budget: RequestBudget;
  compact: Compactor | null;
  /**
   * Runs before each request is sized: may replace old large results with stubs (in place), so a
   * full compaction is needed later or never. Returns events to show (one line when it did something).
   */
  shrink?: (system: string, messages: Message[]) => AgentEvent[];
  approve: Approver;
  maxTurns: number;
  /** What its stops tell the reader to do next: a session's user (the default) or a sub-agent's parent model. */
  words?: StopWords;
  signal: AbortSignal;
  /** Numbers requests across the whole session. */
  nextRequestId: () => number;
  /** Images sent with the prompt (paths the user typed). */
  images?: ImagePart[];
  /**
   * A note for the end of this request only (never added to the conversation, so never journaled):
   * the context passing a threshold. Null: none.
   */
  requestNote?: (promptTokens: number) => string | null;
}
