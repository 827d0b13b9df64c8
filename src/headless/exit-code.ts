import type { TerminalEvent } from "../protocol/index.ts";

/** Exit statuses: they tell the truth about how the task ended. */
export const EXIT = {
  done: 0,
  failure: 1,
  usage: 2,
  config: 3,
  interrupted: 130,
} as const;

/** 0 only when the task ran to its end. */
export function exitCodeFor(event: TerminalEvent): number {
  if (event.type === "done") return EXIT.done;
  if (event.type === "aborted") return EXIT.interrupted;
  return event.code === "config" || event.code === "auth" ? EXIT.config : EXIT.failure;
}
