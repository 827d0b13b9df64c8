// What a stopped run tells its reader to do next. A session's reader is the user, who can resume it
// or raise --max-turns; a sub-agent's is its parent model, which can do neither: it can only ask
// again, narrower, or do the work another way.

/** The words a run's stops end with. */
export interface StopWords {
  /** After a stop that more of the same work could finish; `how` says how to ask (or null). */
  again(how: string | null): string;
  /** The turn limit was reached before the model finished. */
  turnLimit(turns: number): string;
  /** The conversation no longer fits the window and could not be made to. */
  tooLarge: string;
  /** After a repeated refusal stopped the run; `advice` is for a person. */
  afterLoop(advice: string): string;
}

/** A session's own run: the user reads it. */
export const SESSION_WORDS: StopWords = {
  again: (how) => (how ? `Resume the session and ${how}.` : "Resume the session to continue."),
  turnLimit: (turns) =>
    `Stopped after ${turns} turns (the --max-turns limit) before the model finished. Resume the session to let it continue, or raise --max-turns.`,
  tooLarge: "Start a new session, or use a model with a larger window.",
  afterLoop: (advice) => `${advice}; resume the session to go on.`,
};

/** A sub-agent's run: its parent model reads the stop in the tool's result. */
export const SUBAGENT_WORDS: StopWords = {
  again: (how) =>
    how
      ? `Call the sub-agent again and ${how}, or do this part another way.`
      : "Call the sub-agent again with a narrower task, or do this part another way.",
  turnLimit: (turns) =>
    `The sub-agent stopped after ${turns} turns (its own turn limit) before it finished. Give it a narrower task, or do the rest another way.`,
  tooLarge: "Give the sub-agent a smaller task, or do this part another way.",
  afterLoop: () => "Do this part another way.",
};

/** An abort that no person asked for (a time budget, a signal from a supervisor), in words. */
export class StopRequest extends Error {
  override readonly name = "StopRequest";
}

/** Why a run's signal fired: a deadline of its own, whoever stopped it, or the user. */
export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof StopRequest) return reason.message;
  if (reason instanceof Error && reason.name === "TimeoutError") return "its time limit ran out";
  return "interrupted by the user";
}
