import { type AgentEvent, formatCount, plainText } from "../protocol/index.ts";
import type { SessionInfo } from "../runtime/session/index.ts";
import { describeChildEvent } from "../runtime/session/index.ts";

/** Where the text renderer writes: progress to `err`, the final answer to `out`. */
export interface RenderTarget {
  out: (text: string) => void;
  err: (text: string) => void;
}

// Model text is progress when one of these follows it; when `done` follows, it is the answer (stdout).
const SHOWS_ACTIVITY = new Set<AgentEvent["type"]>([
  "request_started",
  "tool_call_started",
  "tool_call_refused",
  "permission_requested",
  "notice",
  "error",
  "aborted",
]);

/**
 * Renders events as human-readable progress on stderr; only the final answer goes to stdout.
 * Model text is buffered per response and shown as progress only when tool calls follow it.
 */
export function createTextRenderer(
  info: SessionInfo,
  target: RenderTarget,
): (event: AgentEvent) => void {
  // Progress and the answer show model and tool text: terminal control in it must not reach the user's terminal.
  const progress: RenderTarget = { out: target.out, err: (text) => target.err(plainText(text)) };
  let pendingText = "";
  let reasoningChars = 0;
  let lastFailure: string | null = null;
  const flushText = () => {
    const text = pendingText.trim();
    pendingText = "";
    if (text) progress.err(`${indent(text, "  │ ")}\n`);
  };
  // Reasoning is shown collapsed, as one line with its size, where it ended.
  const flushReasoning = () => {
    if (reasoningChars > 0)
      progress.err(
        `  ⋯ reasoning (${formatCount(reasoningChars)} characters, not shown; --json has it)\n`,
      );
    reasoningChars = 0;
  };
  return (event) => {
    // A child agent's work is progress, never the answer: one line per step on stderr.
    if (event.agent && event.type !== "permission_requested") {
      const line = describeChildEvent(event);
      if (line) progress.err(`  ↳ ${line}\n`);
      return;
    }
    if (event.type === "reasoning_delta") {
      reasoningChars += event.text.length;
      return;
    }
    if (event.type !== "tool_call_delta" && event.type !== "usage") flushReasoning();
    if (SHOWS_ACTIVITY.has(event.type)) flushText();
    switch (event.type) {
      case "session_started":
        progress.err(sessionLines(event, info));
        return;
      case "context_fitted":
        progress.err(`nex: ${event.line}\n`);
        return;
      case "request_started":
        if (event.attempt === 1)
          progress.err(
            `→ request ${event.requestId} to ${event.host} (max ${event.maxTokens} output tokens)\n`,
          );
        else progress.err(`→ request ${event.requestId}, attempt ${event.attempt}\n`);
        return;
      case "request_failed": {
        // An interrupt is reported once, by the `aborted` event that follows.
        if (event.code === "aborted") return;
        const status = event.status === null ? event.code : `${event.status}`;
        const wait =
          event.retryInMs === null
            ? "giving up"
            : `retry ${event.attempt}/${event.maxRetries} in ${(event.retryInMs / 1000).toFixed(1)}s`;
        progress.err(`✗ ${status} from ${event.host}: ${firstLine(event.message)} (${wait})\n`);
        if (event.retryInMs === null) lastFailure = event.message;
        return;
      }
      case "text_delta":
        pendingText += event.text;
        return;
      case "tool_call_started":
        progress.err(`⚙ ${event.name} ${describeArgs(event.args)}\n`);
        return;
      case "tool_call_refused":
        progress.err(
          `✗ ${event.name} refused, nothing executed: ${event.reason}` +
            (event.bytesReceived
              ? ` (${event.bytesReceived} bytes of arguments received)\n`
              : "\n"),
        );
        return;
      case "permission_requested":
        progress.err(`? ${event.summary} needs approval\n`);
        return;
      case "tool_result":
        progress.err(
          `${event.isError ? "✗" : "✓"} ${event.name}: ${indent(clip(event.content), "    ").trimStart()}\n`,
        );
        return;
      case "tool_progress":
        progress.err(`  … ${event.name}: ${event.message}\n`);
        return;
      case "notice":
        progress.err(`! ${event.message}\n`);
        return;
      case "done": {
        pendingText = "";
        // The answer goes to a terminal as often as to a file: it obeys the same rule as progress.
        const answer = plainText(event.finalText);
        target.out(answer.endsWith("\n") ? answer : `${answer}\n`);
        return;
      }
      case "error":
        // The failure that ended the run was just printed in full; say only that nex stopped.
        progress.err(
          event.message === lastFailure
            ? "nex: stopped after that failure; no further request was sent.\n"
            : `nex: ${event.message}\n`,
        );
        return;
      case "aborted":
        progress.err(
          `nex: interrupted (${event.reason}); the session is saved, continue it with \`nex resume ${info.sessionId}\`.\n`,
        );
        return;
      default:
        return;
    }
  };
}

/** What a session's start says: where it runs, its window, and whether commands are confined. */
function sessionLines(
  event: Extract<AgentEvent, { type: "session_started" }>,
  info: SessionInfo,
): string {
  return (
    `nex: session ${event.sessionId}${event.resumed ? " (resumed)" : ""} · ${event.model} at ${info.host} · ` +
    `window ${formatCount(event.contextWindow)} tokens (${event.windowSource}) · workspace ${event.workspace}\n` +
    (event.sandbox.state === "active"
      ? `nex: ${event.sandbox.line}\n`
      : `nex: warning: ${event.sandbox.line}\n`)
  );
}

/** The arguments worth a glance: paths and commands, never whole file contents. */
export function describeArgs(args: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === "string") {
      if (key === "content" || key === "new_string" || key === "old_string") {
        parts.push(`${key}=<${Buffer.byteLength(value)} bytes>`);
      } else {
        parts.push(
          `${key}=${JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value)}`,
        );
      }
    } else {
      parts.push(`${key}=${JSON.stringify(value)}`);
    }
  }
  return parts.join(" ");
}

function clip(text: string, maxLines = 8): string {
  const lines = text.trimEnd().split("\n");
  if (lines.length <= maxLines) return lines.join("\n");
  return [...lines.slice(0, maxLines), `… ${lines.length - maxLines} more lines`].join("\n");
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => prefix + line)
    .join("\n");
}

function firstLine(text: string): string {
  return text.split("\n", 1)[0] ?? "";
}
