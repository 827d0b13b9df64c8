export type { SessionBudget } from "./request-budget.ts";
export { createSessionBudget } from "./request-budget.ts";
export { resultShrinker } from "./result-stubs.ts";
export { sessionCompaction } from "./session-compaction.ts";
export type { SummarizeInput } from "./summarize-step.ts";
export { summarizeForQuestion } from "./summarize-step.ts";
