import type { TerminalEvent } from "../protocol/index.ts";
import { SIGNAL_EXIT, type StopSignal } from "../runtime/session/index.ts";
import { madeNoChange, type RunOutcome } from "./run-outcome.ts";

/** Exit statuses: they tell the truth about how the task ended. */
export const EXIT = {
  done: 0,
  failure: 1,
  usage: 2,
  config: 3,
  /** The model attempted changes and every one was refused (needed approval, or a rule refused it). */
  nothingChanged: 4,
  /** The --max-time budget ran out before the task ended. */
  timeLimit: 5,
  /** The final answer never met --output-schema (after one corrective retry), or the schema is unusable. */
  schema: 6,
  interrupted: SIGNAL_EXIT.SIGINT,
  terminated: SIGNAL_EXIT.SIGTERM,
  hangUp: SIGNAL_EXIT.SIGHUP,
} as const;

/** What decides a run's exit status besides its terminal event. */
export interface RunEnd {
  outcome?: RunOutcome;
  /** The signal that stopped the run, when one did. */
  stoppedBy?: StopSignal | null;
}

/** 0 only when the task ran to its end and, if it tried to change something, something changed. */
export function exitCodeFor(event: TerminalEvent, end: RunEnd = {}): number {
  if (event.type === "done")
    return end.outcome && madeNoChange(end.outcome) ? EXIT.nothingChanged : EXIT.done;
  if (event.type === "aborted") return SIGNAL_EXIT[end.stoppedBy ?? "SIGINT"];
  return event.code === "config" || event.code === "auth" ? EXIT.config : EXIT.failure;
}
