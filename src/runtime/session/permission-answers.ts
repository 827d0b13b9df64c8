import type { PermissionAnswer } from "../../protocol/index.ts";
import type { ApprovalPolicy } from "./session-parts.ts";

/**
 * The user's answers to permission requests: only a call the user was asked about takes an answer,
 * an answer may come before the loop waits for it, and an interrupt denies every call still waiting.
 */
export class PermissionAnswers {
  private readonly pending = new Map<string, (answer: PermissionAnswer) => void>();
  /** Answers that arrived before the loop asked (a UI may answer from inside its event listener). */
  private readonly early = new Map<string, PermissionAnswer>();
  /** Calls the user was asked about and has not answered: only these take an answer. */
  private readonly asked = new Set<string>();

  /** The user was asked about this call (a `permission_requested` event went out). */
  askedAbout(callId: string): void {
    this.asked.add(callId);
  }

  answer(callId: string, answer: PermissionAnswer): void {
    // A stray or late answer (after a cancel, for a call id guessed ahead) never approves a later call.
    if (!this.asked.delete(callId)) return;
    const resolve = this.pending.get(callId);
    if (!resolve) {
      this.early.set(callId, answer);
      return;
    }
    this.pending.delete(callId);
    resolve(answer);
  }

  /** The answer to a call, once the user gives it (at once under the `refuse` policy or when interrupted). */
  wait(policy: ApprovalPolicy, callId: string, signal: AbortSignal): Promise<PermissionAnswer> {
    if (policy === "refuse") {
      return Promise.resolve({
        type: "deny",
        unasked: true,
        reason:
          "it needs approval, and headless mode without --yes has nobody to ask; rerun with --yes (or --mode auto_edit for file edits)",
      });
    }
    if (signal.aborted) return Promise.resolve({ type: "deny", reason: "interrupted" });
    const early = this.early.get(callId);
    if (early) {
      this.early.delete(callId);
      return Promise.resolve(early);
    }
    return new Promise((resolve) => this.pending.set(callId, resolve));
  }

  /** Interrupted: every waiting call is denied and no earlier answer is kept. */
  denyAll(): void {
    this.asked.clear();
    this.early.clear();
    for (const [callId, resolve] of this.pending) {
      this.pending.delete(callId);
      resolve({ type: "deny", reason: "interrupted" });
    }
  }
}
