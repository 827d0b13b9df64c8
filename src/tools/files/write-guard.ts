import { formatBytes, formatCount } from "../../protocol/index.ts";
import { ToolFailure } from "../tool-failure.ts";
import type { FileState } from "./file-content.ts";
import { countChars, isText, shortHash } from "./file-content.ts";
import type { ReadLedger } from "./ledger.ts";

/** What a change to an existing file must be checked against. */
export interface ReplaceCheck {
  ledger: ReadLedger;
  abs: string;
  display: string;
  /** The file now, or null when the change creates it. */
  existing: FileState | null;
  /** The full new text, when known: enables the content-loss guard. */
  newText?: string;
  /** Replacing the whole file needs a complete read; an exact-string edit needs a current one. */
  requireComplete: boolean;
  /** What is refused, for messages: "Nothing was written." by default. */
  nothing?: string;
}

/** The second layer (the Qwen Code guard): an unread file shrinking below half, or emptied. */
export function looksLikeContentLoss(oldText: string, newText: string): boolean {
  const before = countChars(oldText);
  const after = countChars(newText);
  if (before > 0 && after === 0) return true;
  return before >= 100 && after < before / 2;
}

/**
 * Refuses a change to an existing file the session does not know as it is now.
 * Throws `stale_read`, `not_read` or `content_loss`; returns when the change may go ahead.
 */
export function checkReplace(check: ReplaceCheck): void {
  const { ledger, abs, display, existing, newText, requireComplete } = check;
  const nothing = check.nothing ?? "Nothing was written.";
  if (!existing || existing.size === 0) return;
  const record = ledger.get(abs);
  const current = record !== undefined && record.hash === existing.hash;
  if (current && (record.complete || !requireComplete)) return;
  if (!isText(existing.bytes)) {
    throw new ToolFailure(
      "binary",
      `${display} is a binary (not UTF-8) file of ${formatBytes(existing.size)}; nex will not change it as text. ${nothing} ` +
        `If it really must be replaced, remove it first with bash (\`rm ${display}\`), then write the new file.`,
    );
  }
  if (newText !== undefined && looksLikeContentLoss(existing.bytes.toString("utf8"), newText)) {
    const before = countChars(existing.bytes.toString("utf8"));
    const why =
      record && !current ? "it changed since you read it" : "this session has not read all of it";
    throw new ToolFailure(
      "content_loss",
      `Refused as probable content loss: this would replace ${display} (${formatCount(before)} characters) ` +
        `with ${formatCount(countChars(newText))} characters, and ${why}. ${nothing} ` +
        "Read the file with read_file first; if you then still mean to replace it with shorter content, write it again.",
    );
  }
  if (record && !current) {
    throw new ToolFailure(
      "stale_read",
      `${display} was modified since you read it (now ${formatBytes(existing.size)}, sha256 ${shortHash(existing.hash)}; ` +
        `you read sha256 ${shortHash(record.hash)}). ${nothing} Read it again with read_file, then redo the change on the current content.`,
    );
  }
  if (record && !record.complete) {
    throw new ToolFailure(
      "not_read",
      `Refused: you read only part of ${display} (${formatBytes(existing.size)}); replacing the whole file needs all of it read. ` +
        `${nothing} Read the rest with read_file (offset/limit), or use edit_file for a targeted change.`,
    );
  }
  throw new ToolFailure(
    "not_read",
    `Refused: ${display} exists (${formatBytes(existing.size)}) and this session has not read it. ${nothing} ` +
      "Read it with read_file first; to change part of it, edit_file is safer than rewriting it.",
  );
}
