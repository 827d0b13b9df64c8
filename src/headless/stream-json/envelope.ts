import { randomUUID } from "node:crypto";
import type { AgentEvent, Message, TerminalEvent } from "../../protocol/index.ts";
import type { SessionInfo } from "../../runtime/session/index.ts";
import type { RunOutcome } from "../run-outcome.ts";
import { claudePermissionMode } from "./claude-modes.ts";
import { anthropicStopReason, createPartialEvents } from "./partial-events.ts";

/** One line of Claude Code's stream-json output. */
export type StreamLine = Record<string, unknown> & { type: string };

/** What the renderer needs beside the events. */
export interface EnvelopeOptions {
  info: SessionInfo;
  /** The tools the model may call, by name. */
  tools: string[];
  /** `--include-partial-messages`: Anthropic's raw stream events as `stream_event` lines. */
  partial: boolean;
  version: string;
  write: (line: StreamLine) => void;
}

/** A way a prompt failed that its terminal event does not say: its result subtype, words, exit code, outcome. */
export interface RunFailure {
  subtype: string;
  message: string;
  exitCode: number;
  outcome: string;
}

/** How one prompt ended, for its `result` line. */
export interface PromptEnd {
  terminal: TerminalEvent;
  outcome: RunOutcome;
  exitCode: number;
  /** Set when the answer was checked against `--output-schema`. */
  structuredOutput?: unknown;
  /** Overrides the subtype and errors (a schema the answer never met, a time budget spent). */
  failure?: RunFailure;
}

/**
 * Renders nex's `AgentEvent`s as Claude Code's stream-json envelope: `system/init`, one `assistant`
 * line per model turn (Anthropic-shaped content: thinking, text, tool_use), one `user` line per
 * tool result, optional `stream_event` lines, and a `result` line per prompt.
 */
export function createEnvelope(options: EnvelopeOptions) {
  const { info } = options;
  const partial = options.partial ? createPartialEvents(() => info.model) : null;
  const toolInputs = new Map<string, Record<string, unknown>>();
  const denials: Record<string, unknown>[] = [];
  let reasoning = "";
  let lastUsage = { inputTokens: 0, outputTokens: 0 };
  let lastStop: string | null = null;
  let promptStart = Date.now();
  let apiMs = 0;
  let requestStart: number | null = null;
  let turns = 0;
  const totals = { input: 0, output: 0 };
  const base = () => ({ session_id: info.sessionId, uuid: randomUUID() });

  const assistantLine = (message: Message & { type: "assistant" }): StreamLine => {
    const line = assistantMessageLine(
      message,
      { reasoning, toolInputs, info, lastStop, lastUsage },
      base(),
    );
    reasoning = "";
    return line;
  };

  return {
    /** The first line: what this session is. */
    init(): void {
      options.write(initLine(options, base()));
    },
    /** A prompt starts: its clock and counters start again. */
    beginPrompt(): void {
      promptStart = Date.now();
      apiMs = 0;
      turns = 0;
      totals.input = 0;
      totals.output = 0;
      denials.length = 0;
    },
    see(event: AgentEvent): void {
      for (const raw of partial?.see(event) ?? [])
        options.write({ type: "stream_event", event: raw, parent_tool_use_id: null, ...base() });
      switch (event.type) {
        case "request_started":
          if (event.attempt === 1) requestStart = Date.now();
          reasoning = "";
          return;
        case "request_finished":
          if (requestStart !== null) apiMs += Date.now() - requestStart;
          requestStart = null;
          if (event.purpose === "compaction") return;
          // A turn is the session's own, as --max-turns counts it; sub-agents' requests cost tokens only.
          if (event.agent === undefined && event.purpose === undefined) {
            turns += 1;
            lastStop = anthropicStopReason(event.stopReason);
          }
          lastUsage = event.usage ?? { inputTokens: 0, outputTokens: 0 };
          totals.input += lastUsage.inputTokens;
          totals.output += lastUsage.outputTokens;
          return;
        case "request_failed":
          if (event.retryInMs === null && requestStart !== null) {
            apiMs += Date.now() - requestStart;
            requestStart = null;
          }
          return;
        case "reasoning_delta":
          reasoning += event.text;
          return;
        case "tool_call_refused":
          if (event.cause === "denied")
            denials.push({
              tool_name: event.name,
              tool_use_id: event.callId,
              tool_input: toolInputs.get(event.callId) ?? {},
            });
          return;
        case "message_added":
          if (event.message.type === "assistant") options.write(assistantLine(event.message));
          else if (event.message.type === "tool_result")
            options.write(toolResultLine(event.message, base()));
          return;
        case "note_queued":
        case "note_delivered":
          // nex's own system lines: a message sent with priority "now" or "next" waits, then is delivered.
          options.write({
            type: "system",
            subtype: event.type,
            note_id: event.id,
            kind: event.kind,
            text: event.text,
            ...base(),
          });
          return;
        default:
          return;
      }
    },
    /** The `result` line of a prompt. */
    result: (end: PromptEnd): StreamLine =>
      resultLine(
        end,
        info,
        {
          durationMs: Date.now() - promptStart,
          apiMs,
          turns,
          lastStop,
          totals,
          denials: [...denials],
        },
        base(),
      ),
  };
}

/** The word an orchestrator can branch on; the exit code says the same. */
function outcomeWord(end: PromptEnd): string {
  if (end.failure) return end.failure.outcome;
  if (end.terminal.type === "done") return end.exitCode === 0 ? "done" : "nothing_changed";
  if (end.terminal.type === "aborted") return "interrupted";
  return end.terminal.code === "turn_limit" ? "max_turns" : "failed";
}

function terminalMessage(terminal: TerminalEvent): string {
  if (terminal.type === "error") return terminal.message;
  if (terminal.type === "aborted") return `interrupted: ${terminal.reason}`;
  return "";
}

function anthropicUsage(input: number, output: number): Record<string, unknown> {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    service_tier: "standard",
  };
}

function parseInput(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

type Ids = { session_id: string; uuid: string };

/** The first line: what this session is. */
function initLine(options: EnvelopeOptions, ids: Ids): StreamLine {
  const { info } = options;
  return {
    type: "system",
    subtype: "init",
    cwd: info.workspace,
    ...ids,
    tools: options.tools,
    mcp_servers: [],
    model: info.model,
    permissionMode: claudePermissionMode(info.permissionMode),
    slash_commands: [],
    apiKeySource: "none",
    claude_code_version: options.version,
    output_style: "default",
    agents: [],
    skills: [],
    plugins: [],
    nex: { version: options.version, provider: info.provider, journal: info.journalPath },
  };
}

/** A tool's result, as the `user` line Claude Code sends. */
function toolResultLine(message: Message & { type: "tool_result" }, ids: Ids): StreamLine {
  return {
    type: "user",
    message: {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: message.toolCallId,
          content: message.content,
          is_error: message.isError,
        },
      ],
    },
    parent_tool_use_id: null,
    ...ids,
  };
}

/** What a prompt's `result` line counts. */
interface PromptStats {
  durationMs: number;
  apiMs: number;
  turns: number;
  lastStop: string | null;
  totals: { input: number; output: number };
  denials: Record<string, unknown>[];
}

/** The `result` line of a prompt. */
function resultLine(end: PromptEnd, info: SessionInfo, stats: PromptStats, ids: Ids): StreamLine {
  const { terminal } = end;
  const subtype =
    end.failure?.subtype ??
    (terminal.type === "done"
      ? "success"
      : terminal.type === "error" && terminal.code === "turn_limit"
        ? "error_max_turns"
        : "error_during_execution");
  // As Claude Code: a task that ran to its end is no error, even when some actions were denied
  // (the denials are listed; nex's own outcome and exit code are in `nex`).
  const isError = subtype !== "success";
  const line: StreamLine = {
    type: "result",
    subtype,
    is_error: isError,
    duration_ms: stats.durationMs,
    duration_api_ms: stats.apiMs,
    num_turns: terminal.type === "done" ? terminal.turns : stats.turns,
    stop_reason: stats.lastStop,
    total_cost_usd: 0,
    usage: anthropicUsage(stats.totals.input, stats.totals.output),
    modelUsage: {
      [info.model]: {
        inputTokens: stats.totals.input,
        outputTokens: stats.totals.output,
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
        webSearchRequests: 0,
        costUSD: 0,
        contextWindow: info.contextWindow,
      },
    },
    permission_denials: stats.denials,
    ...ids,
  };
  if (subtype === "success") line.result = terminal.type === "done" ? terminal.finalText : "";
  else line.errors = [end.failure?.message ?? terminalMessage(terminal)];
  if (end.structuredOutput !== undefined) line.structured_output = end.structuredOutput;
  line.nex = {
    exit_code: end.exitCode,
    outcome: outcomeWord(end),
    files_changed: end.outcome.changes,
    changed_files: end.outcome.changedFiles,
    ...(end.outcome.unmeasured.length > 0
      ? { unmeasured_commands: end.outcome.unmeasured.length }
      : {}),
    refused: end.outcome.refused,
    cost_known: false,
  };
  return line;
}

/** One model turn as Claude Code's `assistant` line: thinking, text, then its tool calls (noted in `toolInputs`). */
function assistantMessageLine(
  message: Message & { type: "assistant" },
  turn: {
    reasoning: string;
    toolInputs: Map<string, Record<string, unknown>>;
    info: SessionInfo;
    lastStop: string | null;
    lastUsage: { inputTokens: number; outputTokens: number };
  },
  ids: Ids,
): StreamLine {
  const { reasoning, toolInputs, info, lastStop, lastUsage } = turn;
  const content: Record<string, unknown>[] = [];
  const kept = message.replay?.anthropicBlocks?.filter((block) => block.type === "thinking");
  if (kept && kept.length > 0) content.push(...kept);
  else if (reasoning) content.push({ type: "thinking", thinking: reasoning, signature: "" });
  if (message.text) content.push({ type: "text", text: message.text });
  for (const call of message.toolCalls) {
    const input = parseInput(call.argumentsText);
    toolInputs.set(call.id, input);
    content.push({ type: "tool_use", id: call.id, name: call.name, input });
  }
  return {
    type: "assistant",
    message: {
      id: `msg_nex_${randomUUID()}`,
      type: "message",
      role: "assistant",
      model: info.model,
      content,
      stop_reason: lastStop,
      stop_sequence: null,
      usage: anthropicUsage(lastUsage.inputTokens, lastUsage.outputTokens),
    },
    parent_tool_use_id: null,
    ...ids,
  };
}
