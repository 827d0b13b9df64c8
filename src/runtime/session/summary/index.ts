// The summary kept beside a journal (`<id>.summary.md`): rewritten in the background every few
// answered prompts, read when a session resumes or `nex sessions show` prints it.
import type { readSessionSummary as read } from "./session-summary.ts";

export { SummaryKeeper } from "./summary-keeper.ts";

/** The summary kept beside a journal, or null (loaded on first use: a resume or `nex sessions show`). */
export const readSessionSummary = async (...args: Parameters<typeof read>) =>
  (await import("./session-summary.ts")).readSessionSummary(...args);
