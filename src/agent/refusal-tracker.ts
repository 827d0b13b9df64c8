/** After how many consecutive turns with the same refusal the session changes tack, then stops. */
export const CHANGE_TACK_AT = 2;
export const STOP_AT = 3;

/**
 * Counts, per kind of refusal (cause and tool), the consecutive turns in which it happened,
 * so that a model failing the same way is told to change approach and then stopped.
 */
export class RefusalTracker {
  private readonly streaks = new Map<string, number>();
  private readonly lastReason = new Map<string, string>();

  /** Consecutive earlier turns with this refusal. */
  countFor(key: string): number {
    return this.streaks.get(key) ?? 0;
  }

  /** Notes the plain reason of the latest refusal of a kind, for the stop message. */
  noteReason(key: string, reason: string): void {
    this.lastReason.set(key, reason);
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
      if (count >= STOP_AT) return stopMessage(key, count, this.lastReason.get(key));
    }
    return null;
  }
}

// What a kind of refusal means, for the stop message.
const WHAT: Record<string, { happened: string; advice: string }> = {
  invalid_arguments: {
    happened: "was sent with invalid arguments",
    advice: "Try another model, or ask for the change in smaller steps",
  },
  denied: {
    happened: "was denied",
    advice: "Allow it (--yes or --mode), or ask for the task another way",
  },
  repeated_call: {
    happened: "was repeated with the same result",
    advice: "Rephrase the task or give the model more to go on",
  },
};
const INCOMPLETE = {
  happened: "arrived incomplete",
  advice: "Try a model with a larger output limit, or ask for the change in smaller steps",
};

function stopMessage(key: string, count: number, reason: string | undefined): string {
  const [cause = "", tool = ""] = key.split(":");
  const { happened, advice } = WHAT[cause] ?? INCOMPLETE;
  const detail = reason ? ` (${reason})` : "";
  const subject = tool ? `model's ${tool} call` : "model's tool call";
  return (
    `Stopped: the ${subject} ${happened} ${count} turns in a row${detail}, and nothing was executed for it. ` +
    `nex stops rather than let the model loop. ${advice}; resume the session to go on.`
  );
}
