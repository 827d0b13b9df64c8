export type {
  AgentSession,
  PromptExtra,
  RunChanges,
  SessionInfo,
  SessionSummary,
} from "./agent-session.ts";
export { describeChildEvent } from "./child-line.ts";
export {
  boundedLines,
  createImageStore,
  type ImageStore,
  type InputLine,
  inputLineCap,
  LineSplitter,
  MAX_INPUT_LINE_BYTES,
  noteForModel,
  type OnTooLong,
  type PendingNote,
  readBounded,
  UserNotes,
  withTurnNotes,
} from "./input/index.ts";
export type { CurrentModel, ModelChoices } from "./model-switch.ts";
export { NexSession } from "./nex-session.ts";
export { SessionBusyError } from "./session-busy.ts";
export type { ApprovalPolicy, JournalSink, SessionParts } from "./session-parts.ts";
export type { StopSignal } from "./stop-signals.ts";
export { onStopSignals, SIGNAL_EXIT } from "./stop-signals.ts";

// Loaded on first use: most sessions never need these (ARCHITECTURE.md, "loads when first used").
type ModelSwitchModule = typeof import("./model-switch.ts");
export const modelSwitcher = async (...args: Parameters<ModelSwitchModule["modelSwitcher"]>) =>
  (await import("./model-switch.ts")).modelSwitcher(...args);
export const modelChoices = async (...args: Parameters<ModelSwitchModule["modelChoices"]>) =>
  (await import("./model-switch.ts")).modelChoices(...args);
export { readSessionSummary } from "./summary/index.ts";
