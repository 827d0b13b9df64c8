import type { ToolInvocation, ToolOutcome } from "../../protocol/index.ts";
import type { Launch } from "../../tools/index.ts";
import { claudeName, type HookEntry, type HookEvent, matches } from "./hook-config.ts";
import { type HookRun, runHook } from "./run-hook.ts";

/** What hooks decide at each point of a session. Every method is a no-op without hooks for it. */
export interface Hooks {
  readonly count: number;
  /** A reason when a hook blocks the call (exit 2, or a JSON "block"/"deny"); else null. */
  preToolUse(call: ToolInvocation): Promise<string | null>;
  /** Text for the model from hooks after the call (exit 2's stderr, or `additionalContext`). */
  postToolUse(call: ToolInvocation, outcome: ToolOutcome): Promise<string | null>;
  userPromptSubmit(prompt: string): Promise<{ blocked: string } | { context: string | null }>;
  /** A reason to go on when a Stop hook blocks the end of the task; else null. */
  stop(finalText: string, again: boolean): Promise<string | null>;
  sessionStart(source: "startup" | "resume"): Promise<string | null>;
  notification(message: string): Promise<void>;
  /** Stops the hooks running now (the user interrupted); a PreToolUse hook stopped so blocks its call. */
  interrupt(): void;
}

/** What running hooks needs from the session. */
export interface HookHost {
  /** How a command is launched (the sandbox), as for `bash`. */
  launch(command: string, cwd: string): Promise<Launch>;
  workspace: string;
  sessionId: string;
  transcriptPath: string;
  env: Record<string, string | undefined>;
  /** Tells the user something (a hook's output, a hook that failed). */
  notice(message: string): void;
}

type Decision = { block: string | null; context: string | null };

export function createHooks(entries: HookEntry[], host: HookHost): Hooks {
  let interrupted = new AbortController();
  const run = async (
    event: HookEvent,
    tool: string | null,
    fields: Record<string, unknown>,
  ): Promise<Decision> => {
    const context: string[] = [];
    for (const entry of entries) {
      if (entry.event !== event || !matches(entry, tool)) continue;
      const input = {
        session_id: host.sessionId,
        transcript_path: host.transcriptPath,
        cwd: host.workspace,
        hook_event_name: event,
        ...fields,
      };
      const result = await runHook(await host.launch(entry.command, host.workspace), input, {
        cwd: host.workspace,
        // Claude Code's hooks name their scripts by the project's folder.
        env: { ...host.env, CLAUDE_PROJECT_DIR: host.workspace },
        timeoutMs: entry.timeoutMs,
        signal: interrupted.signal,
      });
      if (result.interrupted)
        return { block: event === "PreToolUse" ? "the user interrupted" : null, context: null };
      const decision = decide(entry, result, event, host);
      if (decision.block !== null) return decision;
      if (decision.context) context.push(decision.context);
    }
    return { block: null, context: context.length > 0 ? context.join("\n") : null };
  };
  return {
    count: entries.length,
    async preToolUse(call) {
      return (await run("PreToolUse", call.name, toolFields(call, host.workspace))).block;
    },
    async postToolUse(call, outcome) {
      const decision = await run("PostToolUse", call.name, {
        ...toolFields(call, host.workspace),
        tool_response: { content: outcome.content, is_error: outcome.isError },
      });
      return decision.block ?? decision.context;
    },
    async userPromptSubmit(prompt) {
      const decision = await run("UserPromptSubmit", null, { prompt });
      return decision.block !== null ? { blocked: decision.block } : { context: decision.context };
    },
    async stop(finalText, again) {
      return (await run("Stop", null, { stop_hook_active: again, last_message: finalText })).block;
    },
    async sessionStart(source) {
      return (await run("SessionStart", null, { source })).context;
    },
    async notification(message) {
      await run("Notification", null, { message });
    },
    interrupt() {
      interrupted.abort();
      interrupted = new AbortController();
    },
  };
}

/** The call as a Claude Code hook reads it: its tool name, and `file_path` beside nex's `path`. */
function toolFields(call: ToolInvocation, workspace: string): Record<string, unknown> {
  const input: Record<string, unknown> = { ...call.args };
  if (typeof call.args.path === "string" && input.file_path === undefined)
    input.file_path = call.args.path.startsWith("/")
      ? call.args.path
      : `${workspace}/${call.args.path}`;
  return { tool_name: claudeName(call.name), nex_tool_name: call.name, tool_input: input };
}

// Events whose plain stdout is context for the model (as in Claude Code); others only show it.
const STDOUT_IS_CONTEXT = new Set<HookEvent>(["UserPromptSubmit", "SessionStart"]);

function decide(entry: HookEntry, result: HookRun, event: HookEvent, host: HookHost): Decision {
  const name = `The ${event} hook \`${short(entry.command)}\` (${entry.source})`;
  if (result.failed !== null) {
    host.notice(`${name} could not start (${result.failed}); nex went on without it.`);
    return { block: null, context: null };
  }
  if (result.timedOut) {
    host.notice(
      `${name} did not finish within ${entry.timeoutMs / 1000} s and was stopped; nex went on without it.`,
    );
    return { block: null, context: null };
  }
  if (result.exitCode === 2)
    return {
      block: result.stderr.trim() || result.stdout.trim() || "no reason given",
      context: null,
    };
  if (result.exitCode !== 0) {
    host.notice(
      `${name} failed (exit ${result.exitCode})${result.stderr.trim() ? `: ${short(result.stderr, 300)}` : ""}; nex went on.`,
    );
    return { block: null, context: null };
  }
  const json = parseJson(result.stdout);
  if (json) {
    const specific = (json.hookSpecificOutput ?? {}) as Record<string, unknown>;
    const reason =
      text(specific.permissionDecisionReason) ?? text(json.reason) ?? text(json.stopReason);
    if (
      json.decision === "block" ||
      specific.permissionDecision === "deny" ||
      json.continue === false
    )
      return { block: reason ?? "no reason given", context: null };
    if (specific.permissionDecision === "allow" || json.decision === "approve")
      // A hook may stop a call, never allow what nex's own rules would ask about or refuse.
      host.notice(`${name} approved the call; nex's own permission rules still apply.`);
    if (text(json.systemMessage)) host.notice(`${name}: ${short(String(json.systemMessage), 300)}`);
    return { block: null, context: text(specific.additionalContext) };
  }
  const out = result.stdout.trim();
  if (out === "") return { block: null, context: null };
  if (STDOUT_IS_CONTEXT.has(event)) return { block: null, context: out };
  host.notice(`${name}: ${short(out, 300)}`);
  return { block: null, context: null };
}

function parseJson(stdout: string): Record<string, unknown> | null {
  const trimmed = stdout.trim();
  if (!trimmed.startsWith("{")) return null;
  try {
    const parsed = JSON.parse(trimmed) as unknown;
    return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

function short(value: string, max = 80): string {
  const line = value.trim().replace(/\s+/g, " ");
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}
