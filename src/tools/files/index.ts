// File safety: the workspace guard, atomic writes, the read ledger, content checks and the write guards.
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
export { matchesGlob } from "./glob-match.ts";
export {
  describeImage,
  extensionOf,
  IMAGE_NAME,
  type ImageCheck,
  type ImageHeader,
  imageForModel,
  imageHeader,
  MAX_IMAGE_BYTES,
} from "./image-file.ts";
export { createLedger, type ReadLedger, sha256 } from "./ledger.ts";
export { createLeftoverSweeper, type LeftoverSweeper } from "./leftovers.ts";
export { conformToFile, describeKept, dominantLineEnding, withLineEnding } from "./line-endings.ts";
export { type OwnFileRead, readOwnFile, readWorkspaceOwnFile } from "./own-file.ts";
export { bytesOfKey, displayKey, keyOfBytes, keyWithin, parentKey, splitNul } from "./path-key.ts";
export { findPlaceholders, placeholderMessage } from "./placeholders.ts";
export {
  climbsOut,
  createWorkspace,
  isWithin,
  type ResolvedPath,
  type Workspace,
} from "./workspace.ts";
export { checkReplace } from "./write-guard.ts";
export { createPartsStore, describeStaging, type PartsStore } from "./write-parts.ts";

import type { FittedImage } from "./image-scale.ts";

export type { FittedImage } from "./image-scale.ts";

/** A picture as a model should get it, scaled down when too large (loads with the first picture). */
export async function fitImage(bytes: Buffer, size?: number): Promise<FittedImage> {
  return (await import("./image-scale.ts")).fitImage(bytes, size);
}

export { applyReplacements, planEdit } from "./edit-match.ts";
