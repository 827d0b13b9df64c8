export type { SessionBudget } from "./request-budget.ts";
export { createSessionBudget } from "./request-budget.ts";
export { resultShrinker } from "./result-stubs.ts";
export { sessionCompaction } from "./session-compaction.ts";
export type { SummarizeInput } from "./summarize-step.ts";

// Loaded on first use: most sessions never need these (ARCHITECTURE.md, "loads when first used").
export const contextReport = async (
  ...args: Parameters<typeof import("./context-report.ts").contextReport>
) => (await import("./context-report.ts")).contextReport(...args);
type SummarizeStepModule = typeof import("./summarize-step.ts");
export const summarizeForQuestion = async (
  ...args: Parameters<SummarizeStepModule["summarizeForQuestion"]>
) => (await import("./summarize-step.ts")).summarizeForQuestion(...args);
