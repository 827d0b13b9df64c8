// File safety: the workspace guard, atomic writes, the read ledger, content checks and the write guards.

// Pictures and the workspace guard live in their own folders, small enough for start-up; file
// safety offers them too.
export * from "../images/index.ts";
export {
  climbsOut,
  createWorkspace,
  isWithin,
  type OwnFileRead,
  type ResolvedPath,
  readOwnFile,
  readWorkspaceOwnFile,
  type Workspace,
} from "../workspace/index.ts";
export {
  type AfterRename,
  atomicWrite,
  type Committed,
  commitFile,
  type FileOwner,
  OwnerNotKept,
  ownerForNew,
  SYNC_WRITE_BYTES,
  syncDirectory,
} from "./atomic-write.ts";
export { shortDiff } from "./diff-text.ts";
export { applyReplacements, planEdit } from "./edit-match.ts";
export {
  countLines,
  type FileState,
  isText,
  readState,
  shortHash,
  statRegular,
  verifyWritten,
  type WrittenFacts,
} from "./file-content.ts";
export { checkReplaceable, ownerNotKept } from "./file-guard.ts";
export { loadGlobMatcher, matchesGlob } from "./glob-match.ts";
export { createLedger, type ReadLedger, sha256 } from "./ledger.ts";
export { createLeftoverSweeper, type LeftoverSweeper } from "./leftovers.ts";
export { conformToFile, describeKept, dominantLineEnding, withLineEnding } from "./line-endings.ts";
export { bytesOfKey, displayKey, keyOfBytes, keyWithin, parentKey, splitNul } from "./path-key.ts";
export { findPlaceholders, placeholderMessage } from "./placeholders.ts";
export { checkReplace } from "./write-guard.ts";
export { createPartsStore, describeStaging, type PartsStore } from "./write-parts.ts";
