import type { Readable } from "node:stream";
import type { AgentEvent, TerminalEvent } from "../../protocol/index.ts";
import type { AgentSession, StopSignal } from "../../runtime/session/index.ts";
import type { SessionSettings } from "./control.ts";
import type { createEnvelope, PromptEnd, StreamLine } from "./envelope.ts";
import type { createPermissionBridge } from "./permission-bridge.ts";

/** A session opened for a stream-json run. */
export interface OpenedForStream {
  session: AgentSession;
  events: AgentEvent[];
  tools: string[];
}

/** What a prompt's end may add beyond its terminal event (an answer checked against a schema). */
export type PromptFinisher = (
  session: AgentSession,
  terminal: TerminalEvent,
) => Promise<Pick<PromptEnd, "structuredOutput" | "failure"> & { terminal?: TerminalEvent }>;

/** How to run. */
export interface StreamJsonOptions {
  /** Opens the session with what the command line and the orchestrator's initialize set. */
  open: (
    settings: SessionSettings,
    approvals: "refuse" | "interactive",
  ) => Promise<OpenedForStream>;
  /** The one prompt, or null to read user messages from `input` (`--input-format stream-json`). */
  prompt: string | null;
  /** `stream-json`: every line; `json`: only the result, as Claude Code prints it. */
  format: "stream-json" | "json";
  partial: boolean;
  /** The orchestrator answers approvals over the stream (`--permission-prompt-tool stdio`). */
  permissionPrompts: boolean;
  version: string;
  settings: SessionSettings;
  finish?: PromptFinisher;
  /** Added to each prompt (what the final answer must be); read when the prompt runs. */
  promptSuffix?: () => string | null;
  input: Readable;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** What the prompt runner and the stdin reader share while one stream-json run lasts. */
export interface StreamState {
  /** What the command line set, changed by the orchestrator's control requests. */
  settings: SessionSettings;
  opened: OpenedForStream | null;
  envelope: ReturnType<typeof createEnvelope> | null;
  bridge: ReturnType<typeof createPermissionBridge> | null;
  stoppedBy: StopSignal | null;
  lastExit: number;
  /** A prompt is running: a user message may join it at its next turn boundary. */
  running: boolean;
  /** User messages waiting to run as prompts, in order. */
  queue: string[];
  /** Urgent messages: run before the queue, and before what the cancelled prompt left. */
  urgent: string[];
  inputClosed: boolean;
  /** Wakes the prompt loop waiting for the queue or the end of input. */
  notify(): void;
  writeLine(line: StreamLine): void;
}
