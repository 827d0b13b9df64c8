// What a typed prompt becomes before the loop sees it: a `!command` run into the conversation, or the
// prompt with hook context, a custom command's text and `@` attachments.
import { abortReason } from "../../agent/stop-words.ts";
import type {
  AgentEvent,
  ImagePart,
  Message,
  PermissionAnswer,
  PermissionCheck,
  TerminalEvent,
  ToolHost,
} from "../../protocol/index.ts";
import type { CommandRun } from "../extensions/index.ts";
import { directCommandMessage } from "./input/index.ts";
import type { SessionParts } from "./session-parts.ts";

/** What the session lends prompt input. */
export interface PromptHost {
  parts: SessionParts;
  /** The session's tools, journaled. */
  tools(): ToolHost;
  emit(event: AgentEvent): void;
  approve(callId: string, signal: AbortSignal): Promise<PermissionAnswer>;
  redact(text: string): string;
  /**
   * Given once (nulls after): nex's own note on how the session starts (a resume's changed files) and
   * what SessionStart hooks said.
   */
  takeStartContext(): { note: string | null; hooks: string | null };
  /** Numbers the command lines a prompt runs. */
  nextCommandId(): number;
  /** Adds a message to the conversation, tells the listeners and makes it durable. */
  append(message: Message): void;
}

/**
 * The prompt the model gets (a custom command's text, `@` attachments), or the terminal event that
 * ends the prompt before any request: nothing is sent when a part of the expansion failed.
 */
export async function expandPrompt(
  host: PromptHost,
  prompt: string,
  signal: AbortSignal,
): Promise<{ type: "prompt"; text: string; images: ImagePart[] } | TerminalEvent> {
  const { parts } = host;
  const hooked = await parts.hooks?.userPromptSubmit(prompt);
  if (hooked && "blocked" in hooked)
    return {
      type: "error",
      code: "config",
      message: `A UserPromptSubmit hook blocked this prompt, so nothing was sent: ${hooked.blocked}`,
    };
  // What SessionStart hooks said comes with the first prompt; a prompt hook's, with its own.
  const start = host.takeStartContext();
  const context = [start.hooks, hooked?.context ?? null].filter((c) => c !== null);
  // nex's own note comes before the prompt, as what the model should know first; hooks' words after
  // it, under their own label. What `@` attached and command lines printed is as untrusted as what a
  // tool reads: the model gets the prompt with nex's secrets replaced.
  const withContext = (text: string) =>
    host.redact(
      (start.note === null ? "" : `${start.note}\n\n`) +
        (context.length === 0 ? text : `${text}\n\n[hook context]\n${context.join("\n")}`),
    );
  if (!parts.expand) return { type: "prompt", text: withContext(prompt), images: [] };
  const expansion = await parts.expand(prompt, (command) => runForPrompt(host, command, signal));
  if (signal.aborted) return { type: "aborted", reason: abortReason(signal) };
  if (!expansion.ok) return { type: "error", code: "config", message: expansion.message };
  for (const note of expansion.notes) host.emit({ type: "notice", message: note });
  // What `@` showed the model counts as read, as read_file's pages do: it may edit those lines.
  for (const file of expansion.attached)
    await parts.tools.recordAttachment?.(file.name, file.bytes);
  return { type: "prompt", text: withContext(expansion.text), images: expansion.images };
}

/** `!command` typed as the prompt: run, and put with its output into the conversation; no request. */
export async function runDirect(
  host: PromptHost,
  command: string,
  signal: AbortSignal,
): Promise<TerminalEvent> {
  const hooked = await host.parts.hooks?.userPromptSubmit(`!${command}`);
  if (hooked && "blocked" in hooked)
    return {
      type: "error",
      code: "config",
      message: `A UserPromptSubmit hook blocked this command, so it did not run: ${hooked.blocked}`,
    };
  // Typed in the chat, it is the user's own yes; a headless prompt may come from a script.
  const source = host.parts.approvals === "interactive" ? "typed" : "command-file";
  const run = await runForPrompt(host, command, signal, source);
  if (signal.aborted) return { type: "aborted", reason: abortReason(signal) };
  if (!run.ok && !run.ran)
    return {
      type: "error",
      code: "config",
      message: `\`${command}\` was not run: ${run.reason}. Nothing was added to the conversation.`,
    };
  const output = run.ok ? run.output : run.reason;
  host.append(directCommandMessage(command, output));
  return { type: "done", finalText: output, turns: 0 };
}

/**
 * A command line of a custom command: a `bash` call of the prompt's first turn, asked and shown as
 * one. One the user typed in the chat (`!command`) is not asked about: they just said to run it. It still runs
 * sandboxed and snapshotted; deny rules and hooks still refuse it, and where no sandbox can confine
 * it the user is asked (warned) as for any command.
 */
async function runForPrompt(
  host: PromptHost,
  command: string,
  signal: AbortSignal,
  source: "typed" | "command-file" = "command-file",
): Promise<CommandRun> {
  const tools = host.tools();
  const call = {
    id: `prompt-command-${host.nextCommandId()}`,
    name: "bash",
    args: { command },
    turn: 1,
  };
  host.emit({ type: "tool_call_started", callId: call.id, name: call.name, args: call.args });
  const permission = userRuns(await tools.permission(call), source);
  let refusal: string | null = permission.type === "deny" ? permission.reason : null;
  if (permission.type === "ask") {
    host.emit({
      type: "permission_requested",
      callId: call.id,
      name: call.name,
      summary: permission.summary,
    });
    const answer = await host.approve(call.id, signal);
    if (answer.type === "deny")
      refusal = answer.reason
        ? `${answer.unasked ? "not approved" : "denied"}: ${answer.reason}`
        : "the user denied it";
    else if (answer.type === "allow_session" || answer.type === "allow_project")
      tools.rememberApproval(call);
    if (answer.type === "allow_project" && tools.saveApproval)
      host.emit({ type: "notice", message: await tools.saveApproval(call) });
  }
  if (refusal !== null) {
    host.emit({
      type: "tool_call_refused",
      callId: call.id,
      name: call.name,
      cause: "denied",
      reason: refusal,
      bytesReceived: 0,
    });
    return { ok: false, reason: refusal };
  }
  const outcome = await tools.execute(call, signal);
  host.emit({
    type: "tool_result",
    callId: call.id,
    name: call.name,
    isError: outcome.isError,
    code: outcome.code ?? null,
    content: outcome.content,
    details: outcome.details ?? null,
  });
  return outcome.isError
    ? { ok: false, reason: outcome.content, ran: outcome.details?.type === "bash" }
    : { ok: true, output: outcome.content };
}

/** The verdict for a command the user typed: their own yes, except where it would run unconfined. */
function userRuns(permission: PermissionCheck, source: "typed" | "command-file"): PermissionCheck {
  if (source !== "typed") return permission;
  // Plan mode keeps the model from changing things, not the user.
  if (permission.type === "deny" && permission.outsidePlan)
    return userRuns(permission.outsidePlan, source);
  if (permission.type === "ask" && permission.unconfined === undefined) return { type: "allow" };
  return permission;
}
