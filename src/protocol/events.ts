import type { ErrorCode, ToolErrorCode } from "./errors.ts";
import type { Message } from "./messages.ts";
import type { TodoItem, ToolDetails } from "./tool.ts";
import type { PoisonCause, StopReason, Usage } from "./turn.ts";

/** Where the model's context window figure came from, shown to the user. */
export type WindowSource = "config" | "registry" | "endpoint" | "error_body" | "default";

/**
 * The one stream a UI reads. Every `run` ends in exactly one terminal event: `done`, `error` or `aborted`.
 * A spinner is on exactly while a `request_started` has no matching `request_finished`/`request_failed` with no retry.
 */
/** How a message typed during a turn reaches the model: `steer` ahead of the others, `queued` in order. */
export type NoteKind = "steer" | "queued";

export type AgentEvent = AgentEventBody & {
  /** Set on every event of a child agent (`delegate`, `map`, `reader`, `summarize`); absent for the session's own. */
  agent?: AgentTag;
};

/** Which child agent an event comes from, and the parent's call that started it. */
export interface AgentTag {
  id: string;
  parentCallId: string;
  /** The named subagent or the tool that runs it (`explore`, `work`, `summarize`, ...). */
  kind: string;
}

type AgentEventBody =
  | {
      type: "session_started";
      sessionId: string;
      model: string;
      provider: string;
      workspace: string;
      contextWindow: number;
      windowSource: WindowSource;
      resumed: boolean;
      sandbox: SandboxStatus;
    }
  /** Resume or compaction made the conversation fit; `line` is the sentence to show. */
  | {
      type: "context_fitted";
      method: "truncated" | "compacted";
      messagesBefore: number;
      messagesKept: number;
      tokensBefore: number;
      tokensKept: number;
      line: string;
    }
  | {
      type: "request_started";
      requestId: number;
      attempt: number;
      host: string;
      model: string;
      maxTokens: number;
    }
  | {
      type: "request_failed";
      requestId: number;
      attempt: number;
      status: number | null;
      code: ErrorCode;
      message: string;
      /** Milliseconds until the retry, or null when this request is given up. */
      retryInMs: number | null;
      maxRetries: number;
      host: string;
    }
  | {
      type: "request_finished";
      requestId: number;
      stopReason: StopReason;
      usage: Usage | null;
      /** Set for a compaction's or a tool's summary request: its usage is not the conversation's size. */
      purpose?: "compaction" | "summary";
    }
  | { type: "text_delta"; text: string }
  /** The model's reasoning (thinking): shown apart, never part of the final answer. */
  | { type: "reasoning_delta"; text: string }
  | { type: "tool_call_delta"; index: number; name: string | null; argumentsDelta: string }
  | { type: "tool_call_started"; callId: string; name: string; args: Record<string, unknown> }
  | {
      type: "tool_call_refused";
      callId: string;
      name: string;
      cause: PoisonCause | "invalid_arguments" | "denied" | "repeated_call";
      reason: string;
      bytesReceived: number;
      /** The call's arguments, when they parsed (a denied call): what was refused, for the screen. */
      args?: Record<string, unknown>;
    }
  | {
      type: "permission_requested";
      callId: string;
      name: string;
      summary: string;
      /** A file tool's diff, for the prompt (never journaled differently from the summary). */
      preview?: string;
      /** What "allow for this session" would approve, in words. */
      scope?: string;
    }
  /** A step of a long tool call (research: searching, reading a page, summarising). */
  | { type: "tool_progress"; callId: string; name: string; message: string }
  /**
   * A running command's output so far, for a UI to show live: its last lines (raw, untrusted: a UI
   * strips control sequences), how many lines and bytes. Throttled; never journaled.
   */
  | {
      type: "tool_output";
      callId: string;
      name: string;
      tail: string;
      lines: number;
      bytes: number;
    }
  | {
      type: "tool_result";
      callId: string;
      name: string;
      isError: boolean;
      code: ToolErrorCode | null;
      content: string;
      details: ToolDetails | null;
    }
  /** The model's checklist changed (or a resumed session has one): the whole list. */
  | { type: "todo_updated"; items: TodoItem[] }
  /** Something the user should know that is not an error: an output-limit escalation, a change of tack. */
  | { type: "notice"; message: string }
  /**
   * A message the user typed while the model worked reached the model at a turn boundary, with the
   * next tool result: `steer` ones first (a change of course), then `queued` ones in order.
   */
  | { type: "note_delivered"; id: number; kind: NoteKind; text: string }
  /** A message typed during the turn now waits for the next boundary. */
  | { type: "note_queued"; id: number; kind: NoteKind; text: string }
  | { type: "message_added"; message: Message }
  | {
      type: "usage";
      inputTokens: number;
      outputTokens: number;
      /** Of `inputTokens`, read from the server's prompt cache; absent when the server said nothing. */
      cacheReadTokens?: number;
      /** Prompt tokens written to the server's cache (Anthropic). */
      cacheWriteTokens?: number;
      contextTokens: number;
      contextWindow: number;
    }
  | { type: "done"; finalText: string; turns: number }
  | {
      type: "error";
      code: ErrorCode | "repeated_failure" | "turn_limit" | "internal";
      message: string;
    }
  | { type: "aborted"; reason: string };

/** The terminal events. */
export type TerminalEvent = Extract<AgentEvent, { type: "done" | "error" | "aborted" }>;

export function isTerminal(event: AgentEvent): event is TerminalEvent {
  return event.type === "done" || event.type === "error" || event.type === "aborted";
}

/** How commands are confined, and whether that works here; `line` is the sentence to show. */
export interface SandboxStatus {
  mode: "workspace-write" | "read-only" | "off";
  network: boolean;
  /** With `network` off, the hosts commands still reach through nex's proxy (none: absent or empty). */
  allowHosts?: string[];
  state: "active" | "unavailable" | "off";
  line: string;
}
