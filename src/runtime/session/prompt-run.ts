// One prompt to its end: a `!command` or the expanded prompt through the loop, Stop hooks that may
// send the model back to work, and the count of failed runs that stops a session hammering an
// endpoint.
import { runLoop } from "../../agent/loop.ts";
import {
  isTerminal,
  type Message,
  type PermissionAnswer,
  type TerminalEvent,
  type ToolHost,
} from "../../protocol/index.ts";
import type { PromptMark } from "../history/index.ts";
import type { PromptExtra, SessionInfo } from "./agent-session.ts";
import { contextNote } from "./context-note.ts";
import { directCommand } from "./input/index.ts";
import { expandPrompt, type PromptHost, runDirect } from "./prompt-input.ts";
import type { SessionEvents } from "./session-events.ts";
import type { SessionParts } from "./session-parts.ts";

/** What a prompt sent in plan mode carries. */
const PLAN_NOTE =
  "[nex] Plan mode is on: read and search as much as you need, but change nothing (edits, writes and changing commands are refused). Answer with a plan: what you would change, in which files, and why.";

/** How many times Stop hooks may send the model back to work in one prompt. */
const MAX_STOP_CONTINUATIONS = 3;

/** After this many consecutive failed runs the session stops sending requests. */
const CIRCUIT_BREAKER_AT = 3;

/** The failed runs in a row; at CIRCUIT_BREAKER_AT the session sends no more requests. */
export class FailedRuns {
  count = 0;

  get tripped(): boolean {
    return this.count >= CIRCUIT_BREAKER_AT;
  }

  /** A run that hit its turn limit or repeated itself is no endpoint failing. */
  ended(end: TerminalEvent): void {
    if (end.type === "error" && end.code !== "repeated_failure" && end.code !== "turn_limit")
      this.count++;
    else if (end.type === "done") this.count = 0;
  }
}

/** What the session lends one prompt's run. */
export interface PromptRunHost {
  parts: SessionParts;
  info: SessionInfo;
  events: SessionEvents;
  failures: FailedRuns;
  /** The prompts of this process, for `/rewind`. */
  marks: PromptMark[];
  messages(): Message[];
  /** The session's tools, journaled. */
  tools(): ToolHost;
  promptHost(): PromptHost;
  approve(callId: string, signal: AbortSignal): Promise<PermissionAnswer>;
  nextRequestId(): number;
  /** A prompt was answered (the session summary may be due). */
  answered(): void;
}

/** One prompt to its end. A fault of ours (a journal write failing) ends it with an error event, never a rejection. */
export async function runPrompt(
  host: PromptRunHost,
  prompt: string,
  signal: AbortSignal,
  more: PromptExtra = {},
): Promise<TerminalEvent> {
  const { parts, info, events } = host;
  const sentAt = new Date().toISOString();
  let marked = false;
  // Undo takes whole prompts as its steps.
  parts.tools.beginPrompt?.();
  try {
    const command = directCommand(prompt);
    if (command !== null) return events.end(await runDirect(host.promptHost(), command, signal));
    const expanded = await expandPrompt(host.promptHost(), prompt, signal);
    if (expanded.type !== "prompt") return events.end(expanded);
    // In plan mode the model hears it with the prompt, not only from its first refused change.
    // What a chat message's attachments give comes after the expansion: an attached file is not expanded.
    const given = expanded.text + (more.text ? host.promptHost().redact(more.text) : "");
    let text = info.permissionMode === "plan" ? `${given}\n\n${PLAN_NOTE}` : given;
    let images = [...expanded.images, ...(more.images ?? [])];
    let terminal: TerminalEvent | null = null;
    // A Stop hook may send the model back to work (bounded): the prompt keeps one terminal event.
    for (let again = 0; ; again++) {
      const loop = runLoop(text, {
        stream: parts.stream,
        tools: host.tools(),
        model: info.model,
        system: parts.system,
        messages: host.messages(),
        budget: parts.budget,
        compact: parts.compactor,
        ...(parts.shrink ? { shrink: parts.shrink } : {}),
        approve: (request, approvalSignal) => host.approve(request.callId, approvalSignal),
        maxTurns: parts.maxTurns,
        signal,
        nextRequestId: () => host.nextRequestId(),
        ...(images.length > 0 ? { images } : {}),
        requestNote: contextNote(() => parts.budget.window()),
      });
      images = [];
      terminal = null;
      for await (const event of loop) {
        if (isTerminal(event)) {
          terminal = events.scrubbed(event);
          continue;
        }
        if (!marked && event.type === "message_added" && event.message.type === "user") {
          marked = true;
          host.marks.push({ message: event.message, text: prompt, time: sentAt });
        }
        events.emit(event);
        // A turn's records (its response and tool results) are made durable as the next request starts.
        if (event.type === "request_started") parts.journal.sync();
      }
      const more =
        terminal?.type === "done" && again < MAX_STOP_CONTINUATIONS && !signal.aborted
          ? ((await parts.hooks?.stop(terminal.finalText, again > 0)) ?? null)
          : null;
      if (more === null) break;
      events.emit({ type: "notice", message: `A Stop hook asked the model to go on: ${more}` });
      text = `[Stop hook] The task is not finished: ${more}`;
    }
    if (terminal) events.emit(terminal);
    const end: TerminalEvent = terminal ?? {
      type: "error",
      code: "internal",
      message: "The loop ended without a result; this is a bug in nex, please report it.",
    };
    host.failures.ended(end);
    parts.journal.sync();
    if (end.type === "done") host.answered();
    return end;
  } catch (error) {
    host.failures.count++;
    const end: TerminalEvent = events.scrubbed({
      type: "error",
      code: "internal",
      message: `nex stopped this task after a fault of its own: ${(error as Error).message}. Work done so far is on disk; the session journal may miss its last records. Please report this.`,
    });
    events.notify(end);
    return end;
  }
}
