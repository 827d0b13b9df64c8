/**
 * The clock of one tool call. It ends the call after `idleMs` without progress, and progress moves
 * that deadline only when it advances (a larger `progress` than any before): a server that repeats
 * "1/10" forever is not making progress. `totalMs` ends the call whatever the server sends.
 */
export class CallDeadline {
  private readonly controller = new AbortController();
  private idleTimer: ReturnType<typeof setTimeout>;
  private readonly totalTimer: ReturnType<typeof setTimeout>;
  private best = Number.NEGATIVE_INFINITY;
  /** Which limit ended the call, once one has. */
  expired: "idle" | "total" | null = null;

  private readonly idleMs: number;

  constructor(idleMs: number, totalMs: number) {
    this.idleMs = idleMs;
    this.idleTimer = setTimeout(() => this.expire("idle"), idleMs);
    this.totalTimer = setTimeout(() => this.expire("total"), totalMs);
  }

  /** Aborted when a limit is reached. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A progress notification arrived; only a value past every earlier one restarts the idle clock. */
  progressed(progress: number): void {
    if (this.expired || !Number.isFinite(progress) || progress <= this.best) return;
    this.best = progress;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.expire("idle"), this.idleMs);
  }

  /** Stops both clocks; call when the call has ended, however it ended. */
  dispose(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.totalTimer);
  }

  private expire(which: "idle" | "total"): void {
    if (this.expired) return;
    this.expired = which;
    this.dispose();
    this.controller.abort(new Error(`the call reached its ${which} time limit`));
  }
}
