import { SESSION_WORDS, type StopWords } from "./stop-words.ts";

/** After how many consecutive turns with the same refusal the session changes tack, then stops. */
export const CHANGE_TACK_AT = 2;
export const STOP_AT = 3;

/** What one kind of refusal was, for the stop message. */
export interface RefusalNote {
  cause: string;
  /** The tool, or "" when the call had no name. */
  tool: string;
  /** The plain reason of the latest one. */
  reason: string;
  /** What a person can do about it; the cause's usual advice when absent. */
  advice?: string;
}

/**
 * Counts, per kind of refusal, the consecutive turns in which it happened, so that a model failing
 * the same way is told to change approach and then stopped. A kind is a cause, a tool and, where the
 * call arrived whole, its arguments: a model trying three different URLs is not stuck, one sending the
 * same refused call three times is. (A repeated call is the same call by definition: its kind is
 * the tool's, so reading A, B, A, B... is one streak. A call cut short has no whole arguments.)
 */
export class RefusalTracker {
  private readonly streaks = new Map<string, number>();
  private readonly notes = new Map<string, RefusalNote>();

  private readonly words: StopWords;

  constructor(words: StopWords = SESSION_WORDS) {
    this.words = words;
  }

  /** Consecutive earlier turns with this refusal. */
  countFor(key: string): number {
    return this.streaks.get(key) ?? 0;
  }

  /** Notes the latest refusal of a kind, for the stop message. */
  note(key: string, note: RefusalNote): void {
    this.notes.set(key, note);
  }

  /** Closes a turn; returns the message to stop with when a refusal reached its limit. */
  endTurn(keys: string[]): string | null {
    const seen = new Set(keys);
    for (const key of [...this.streaks.keys()]) {
      if (!seen.has(key)) this.streaks.delete(key);
    }
    for (const key of seen) {
      const count = (this.streaks.get(key) ?? 0) + 1;
      this.streaks.set(key, count);
      if (count >= STOP_AT) return this.stopMessage(key, count);
    }
    return null;
  }

  private stopMessage(key: string, count: number): string {
    const note = this.notes.get(key);
    const { happened, advice } = WHAT[note?.cause ?? ""] ?? incomplete(note?.tool ?? "");
    const detail = note?.reason ? ` (${note.reason})` : "";
    const subject = note?.tool ? `model's ${note.tool} call` : "model's tool call";
    return (
      `Stopped: the ${subject} ${happened} ${count} turns in a row${detail}, and nothing was executed for it. ` +
      `nex stops rather than let the model loop. ${this.words.afterLoop(note?.advice ?? advice)}`
    );
  }
}

// What a kind of refusal means, for the stop message. A denial's advice comes with each denial: who
// refused it (a rule, a setting, a person, no person) decides what would allow it.
const WHAT: Record<string, { happened: string; advice: string }> = {
  invalid_arguments: {
    happened: "was sent with invalid arguments",
    advice: "Try a model that follows the tool's parameters, or ask for the task another way",
  },
  denied: {
    happened: "was denied",
    advice: "Ask for the task another way",
  },
  repeated_call: {
    happened: "was repeated with the same result",
    advice: "Rephrase the task or give the model more to go on",
  },
};
/** A call cut short: smaller steps help only a tool whose arguments carry the change itself. */
function incomplete(tool: string): { happened: string; advice: string } {
  const carriesContent = tool === "write_file" || tool === "edit_file";
  return {
    happened: "arrived incomplete",
    advice: carriesContent
      ? "Try a model with a larger output limit, or ask for the change in smaller steps"
      : "Try a model with a larger output limit, or check the endpoint (the stream was cut)",
  };
}
