export type {
  AgentSession,
  PromptExtra,
  RunChanges,
  SessionInfo,
  SessionSummary,
} from "./agent-session.ts";
export type { InputLine, OnTooLong } from "./bounded-lines.ts";
export {
  boundedLines,
  inputLineCap,
  LineSplitter,
  MAX_INPUT_LINE_BYTES,
  readBounded,
} from "./bounded-lines.ts";
export { describeChildEvent } from "./child-line.ts";
export type { ImageStore } from "./image-store.ts";
export { createImageStore } from "./image-store.ts";
export type { CurrentModel, ModelChoices } from "./model-switch.ts";
export { NexSession } from "./nex-session.ts";
export { SessionBusyError } from "./session-busy.ts";
export type { ApprovalPolicy, JournalSink, SessionParts } from "./session-parts.ts";
export type { StopSignal } from "./stop-signals.ts";
export { onStopSignals, SIGNAL_EXIT } from "./stop-signals.ts";
export { withTurnNotes } from "./turn-notes.ts";
export type { PendingNote } from "./user-notes.ts";
export { noteForModel, UserNotes } from "./user-notes.ts";

// Loaded on first use: most sessions never need these (ARCHITECTURE.md, "loads when first used").
type ModelSwitchModule = typeof import("./model-switch.ts");
export const modelSwitcher = async (...args: Parameters<ModelSwitchModule["modelSwitcher"]>) =>
  (await import("./model-switch.ts")).modelSwitcher(...args);
export const modelChoices = async (...args: Parameters<ModelSwitchModule["modelChoices"]>) =>
  (await import("./model-switch.ts")).modelChoices(...args);
type SessionSummaryModule = typeof import("./session-summary.ts");
/** The summary kept beside a journal, or null (loaded on first use: a resume or `nex sessions show`). */
export const readSessionSummary = async (
  ...args: Parameters<SessionSummaryModule["readSessionSummary"]>
) => (await import("./session-summary.ts")).readSessionSummary(...args);
