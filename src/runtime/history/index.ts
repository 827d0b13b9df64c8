export { ownSessionsOnly, recordOwnSession } from "./own-sessions.ts";
export type { PromptMark, RewindPoint, UndoStepInfo } from "./rewind.ts";
export { describeRewindPlan, describeRewindPoints, firstLine, rewindPoints } from "./rewind.ts";
export type { SessionSummary } from "./session-list.ts";
export type { UndoSessionAnswer } from "./undo-session.ts";

// Loaded on first use: most sessions never need these (ARCHITECTURE.md, "loads when first used").
type LocateSessionModule = typeof import("./locate-session.ts");
export const locateSession = async (...args: Parameters<LocateSessionModule["locateSession"]>) =>
  (await import("./locate-session.ts")).locateSession(...args);
type ForkSessionModule = typeof import("./fork-session.ts");
export const forkJournal = async (...args: Parameters<ForkSessionModule["forkJournal"]>) =>
  (await import("./fork-session.ts")).forkJournal(...args);
type NamedSessionsModule = typeof import("./named-sessions.ts");
export const namedSession = async (...args: Parameters<NamedSessionsModule["namedSession"]>) =>
  (await import("./named-sessions.ts")).namedSession(...args);
export const nameSession = async (...args: Parameters<NamedSessionsModule["nameSession"]>) =>
  (await import("./named-sessions.ts")).nameSession(...args);
type SessionListModule = typeof import("./session-list.ts");
export const listSessionsFor = async (...args: Parameters<SessionListModule["listSessionsFor"]>) =>
  (await import("./session-list.ts")).listSessionsFor(...args);
export const summariesIn = async (...args: Parameters<SessionListModule["summariesIn"]>) =>
  (await import("./session-list.ts")).summariesIn(...args);
type UndoListModule = typeof import("./undo-list.ts");
export const describeUndoList = async (...args: Parameters<UndoListModule["describeUndoList"]>) =>
  (await import("./undo-list.ts")).describeUndoList(...args);
type UndoResultModule = typeof import("./undo-result.ts");
export const undoResultOf = async (...args: Parameters<UndoResultModule["undoResultOf"]>) =>
  (await import("./undo-result.ts")).undoResultOf(...args);
type UndoSessionModule = typeof import("./undo-session.ts");
export const undoSession = async (...args: Parameters<UndoSessionModule["undoSession"]>) =>
  (await import("./undo-session.ts")).undoSession(...args);
