export { type ContextBudget, chooseMaxTokens, contextBudget, MIN_MAX_TOKENS } from "./budget.ts";
export { findSession, listSessions, type SessionListing, type SessionLookup } from "./catalog.ts";
export {
  applyCompaction,
  buildCompactionRequests,
  buildMergeRequests,
  type CompactionPlan,
  type CompactionResult,
  planCompaction,
  runCompaction,
  type SummaryRequest,
} from "./compaction.ts";
export {
  createJournal,
  type Journal,
  type JournalOptions,
  journalPath,
  type NewSession,
  openJournal,
  readJournal,
  type SyncMode,
} from "./journal.ts";
export { mapStrings } from "./map-strings.ts";
export { renderMessage } from "./message-text.ts";
export type { CompactionInfo, JournalRecord, SessionMeta, UsageInfo } from "./records.ts";
export {
  describeFit,
  type FitFacts,
  formatTokens,
  loadForResume,
  type ResumeOptions,
  type ResumeResult,
  SUMMARY_PREFIX,
} from "./replay.ts";
export { type KnownSecrets, scrubText } from "./scrub.ts";
export {
  createSecretScrubber,
  type KnownSecret,
  type SecretScrubber,
  scrubDeep,
} from "./secret-scrubber.ts";
export { isSessionId, newSessionId } from "./session-id.ts";
export {
  acquireSessionLock,
  type LockHolder,
  SessionBusyError,
  type SessionLock,
} from "./session-lock.ts";
export { textMemo } from "./text-memo.ts";
export {
  cheapTextTokens,
  cheapTokens,
  createTokenEstimator,
  type TokenEstimator,
  type UsageSample,
} from "./tokens.ts";
