// A session's events on their way out: redacted once (`createEventRedactor`, the one path every
// event takes out of the process), journaled, and told to every listener; usage becomes the
// context fill a UI shows.
import type { AgentEvent, TerminalEvent } from "../../protocol/index.ts";
import { createEventRedactor, type EventRedactor } from "../secrets/index.ts";
import { JOURNALED, withoutImageBytes } from "./journal-records.ts";
import type { PermissionAnswers } from "./permission-answers.ts";
import type { SessionParts } from "./session-parts.ts";

export class SessionEvents {
  private readonly listeners = new Set<(event: AgentEvent) => void>();
  private readonly redactor: EventRedactor;
  private readonly parts: SessionParts;
  private readonly answers: PermissionAnswers;
  /** How many messages the conversation holds now (the prompt a usage report measured). */
  private readonly messageCount: () => number;

  constructor(parts: SessionParts, answers: PermissionAnswers, messageCount: () => number) {
    this.redactor = createEventRedactor(parts.secrets);
    this.parts = parts;
    this.answers = answers;
    this.messageCount = messageCount;
  }

  subscribe(listener: (event: AgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sends an event to the journal and to every listener, redacted. */
  emit(raw: AgentEvent): void {
    for (const event of this.redactor.redact(raw)) this.send(event);
  }

  /** Emits the event that ends a prompt and returns it as the caller may keep it: redacted. */
  end(event: TerminalEvent): TerminalEvent {
    this.emit(event);
    return this.scrubbed(event);
  }

  /** Text from outside the event stream with nex's secrets replaced. */
  text(text: string): string {
    return this.redactor.text(text);
  }

  scrubbed<E extends AgentEvent>(event: E): E {
    return this.redactor.value(event);
  }

  /** Sends an event to every listener; a listener that throws does not keep the others from it. */
  notify(event: AgentEvent): void {
    let failure: unknown = null;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure) throw failure;
  }

  private send(event: AgentEvent): void {
    if (event.type === "permission_requested") this.answers.askedAbout(event.callId);
    // A child's conversation is kept in the parent's journal as events, which resume leaves out of
    // the parent's history; its requests count in the session's usage, not in the window's fill.
    if (event.agent) {
      if (event.type === "message_added" || JOURNALED.has(event.type))
        this.parts.journal.event(event);
      this.notify(event);
      if (event.type === "request_finished" && event.usage) {
        const { inputTokens, outputTokens } = event.usage;
        this.parts.journal.usage(inputTokens, outputTokens);
        // Counted in the usage shown; a UI keeps the context fill of the parent's conversation.
        this.notify({
          type: "usage",
          inputTokens,
          outputTokens,
          contextTokens: inputTokens + outputTokens,
          contextWindow: this.parts.budget.window(),
          agent: event.agent,
        });
      }
      return;
    }
    if (event.type === "message_added") this.parts.journal.message(event.message);
    else if (JOURNALED.has(event.type)) this.parts.journal.event(event);
    this.notify(withoutImageBytes(event));
    // Someone must answer: a Notification hook (a desktop notifier, say) can tell them.
    if (event.type === "permission_requested" && this.parts.approvals === "interactive")
      void this.parts.hooks?.notification(`nex needs your permission: ${event.summary}`);
    if (event.type === "tool_result" && !event.isError && event.details?.type === "todo")
      this.emit({ type: "todo_updated", items: event.details.items });
    // A summary request's prompt is part of the conversation, not all of it: its usage says nothing
    // of the conversation's size (and would look like a server cutting the prompt).
    if (event.type === "request_finished" && event.usage && event.purpose === undefined) {
      const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = event.usage;
      this.parts.journal.usage(inputTokens, outputTokens);
      // The prompt of this request was the messages so far; the answer is appended after this
      // event and estimated with whatever follows it.
      const warning = this.parts.budget.observeUsage(inputTokens, 0, this.messageCount());
      if (warning) this.emit({ type: "notice", message: warning });
      this.emit({
        type: "usage",
        inputTokens,
        outputTokens,
        ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}),
        ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
        contextTokens: inputTokens + outputTokens,
        contextWindow: this.parts.budget.window(),
      });
    }
  }
}
