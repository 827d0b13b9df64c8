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

function stopMessage(key: string, count: number, reason: string | undefined): string {
  const [cause, tool] = key.split(":");
  const what =
    cause === "invalid_arguments" ? "was sent with invalid arguments" : "arrived incomplete";
  const detail = reason ? ` (${reason})` : "";
  return (
    `Stopped: the model's ${tool} call ${what} ${count} turns in a row${detail}, and nothing was executed for it. ` +
    "nex stops rather than let the model loop. Try a model with a larger output limit, or ask for the change in smaller steps; resume the session to go on."
  );
}
