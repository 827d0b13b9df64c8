// When the session summary is rewritten: after every few prompts that ended with an answer, in the
// background (the prompt has ended; the next one does not wait), one at a time, stopped when the
// session closes. The writer (`session-summary.ts`) loads only when the first one is due.
import type { Message } from "../../../protocol/index.ts";
import type { SummaryParts } from "./session-summary.ts";

/** A summary is rewritten after every this many answered prompts. */
const EVERY = 5;

export class SummaryKeeper {
  private answered = 0;
  private running: { controller: AbortController; done: Promise<unknown> } | null = null;
  private readonly parts: () => SummaryParts;

  constructor(parts: () => SummaryParts) {
    this.parts = parts;
  }

  /** A prompt ended with an answer; `messages` is the conversation now. */
  answeredPrompt(messages: readonly Message[]): void {
    this.answered += 1;
    if (this.answered % EVERY !== 0 || this.running) return;
    const controller = new AbortController();
    const snapshot = [...messages];
    const done = import("./session-summary.ts")
      .then((module) => module.writeSessionSummary(snapshot, this.parts(), controller.signal))
      .catch(() => false)
      .finally(() => {
        this.running = null;
      });
    this.running = { controller, done };
  }

  /** Stops a summary in flight and waits for it to end. */
  async stop(): Promise<void> {
    const running = this.running;
    if (!running) return;
    running.controller.abort();
    await running.done;
  }
}
