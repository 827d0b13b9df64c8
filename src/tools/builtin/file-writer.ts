import { chownSync, constants, mkdirSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname } from "node:path";
import { formatBytes } from "../../protocol/index.ts";
import type { ResolvedPath } from "../files/index.ts";
import {
  atomicWrite,
  type Committed,
  commitFile,
  countLines,
  type FileOwner,
  type FileState,
  OwnerNotKept,
  ownerForNew,
  ownerNotKept,
  sha256,
  verifyWritten,
  type WrittenFacts,
} from "../files/index.ts";
import type { ToolContext } from "../tool.ts";
import { ToolFailure } from "../tool-failure.ts";

/** How the new content reaches the target: bytes to write, or a staged file already synced beside it. */
export type NewContent =
  | { type: "bytes"; bytes: Uint8Array }
  | { type: "staged"; path: string; bytes: Uint8Array; check: () => Promise<void> };

/** A change to one file, checked and ready to commit. */
export interface FileChange {
  target: ResolvedPath;
  existing: FileState | null;
  content: NewContent;
  /** Whether the session knows the whole new content (a write) or only as much as before (an edit). */
  complete: boolean;
}

/** A change whose rename happened: the new content is in place. */
export interface CommittedChange extends WrittenFacts {
  /** What could not be confirmed after the rename, one clause each; empty when all was. */
  unconfirmed: string[];
  /** What else the user should know of the change (a hard link it split). */
  notes: string[];
}

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

// The staged file gets the replaced file's owner, group and mode through a descriptor opened without
// following a symlink, so nothing planted at its name is changed instead.
async function applyMetadata(
  path: string,
  mode: number | undefined,
  owner: FileOwner | undefined,
): Promise<void> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const now = await handle.stat();
    if (owner && (now.uid !== owner.uid || now.gid !== owner.gid)) {
      await handle.chown(owner.uid, owner.gid).catch((error: unknown) => {
        throw new OwnerNotKept(owner, error);
      });
    }
    if (mode !== undefined) await handle.chmod(mode);
  } finally {
    await handle.close();
  }
}

// Creates the missing directories above a new file, owned like the file will be.
function makeParents(dir: string): void {
  const first = mkdirSync(dir, { recursive: true });
  if (first === undefined) return;
  const owner = ownerForNew(dirname(first));
  if (!owner) return;
  for (let made = dir; ; made = dirname(made)) {
    chownSync(made, owner.uid, owner.gid);
    if (made === first || made === dirname(made)) break;
  }
}

async function rename(ctx: ToolContext, change: FileChange): Promise<Committed> {
  const { target, existing, content } = change;
  const syncDir = ctx.limits.afterRename?.syncDir;
  const owner = existing
    ? { uid: existing.uid, gid: existing.gid }
    : ownerForNew(dirname(target.abs));
  if (content.type === "bytes") {
    return atomicWrite(target.abs, content.bytes, {
      ...(existing ? { mode: existing.mode } : {}),
      ...(owner ? { owner } : {}),
      ...(syncDir ? { syncDir } : {}),
      signal: ctx.signal,
    });
  }
  await content.check();
  if (existing || owner) await applyMetadata(content.path, existing?.mode, owner);
  return commitFile(content.path, target.abs, syncDir);
}

/**
 * Commits a checked change: saves the undo checkpoint first, writes atomically (keeping a replaced
 * file's owner, group and mode), reads back, and records the new content in the ledger. Throws a
 * ToolFailure that says nothing was written when any step before the rename fails; once the rename
 * happened it never throws for a later step but reports what could not be confirmed.
 */
export async function commitChange(ctx: ToolContext, change: FileChange): Promise<CommittedChange> {
  const { target, existing, content } = change;
  try {
    await ctx.checkpoints.beforeEdit(ctx.turn, target.abs);
  } catch (error) {
    throw new ToolFailure(
      "failed",
      `Could not save the undo checkpoint for ${target.display} (${reason(error)}); nothing was written. ` +
        "Tell the user: the checkpoint directory may be full or unwritable.",
    );
  }
  if (!existing) makeParents(dirname(target.abs));
  ctx.leftovers.sweep(dirname(target.abs));
  const { dirSyncError } = await rename(ctx, change).catch((error: unknown) => {
    if (!(error instanceof OwnerNotKept)) throw error;
    throw ownerNotKept(target.display, error.message, "Nothing was written.");
  });
  const unconfirmed: string[] = [];
  const notes: string[] = [];
  // The rename gives the path a new file: the file's other names keep the old content.
  if (existing && existing.links > 1) {
    const others = existing.links - 1;
    notes.push(
      `${target.display} had ${existing.links} hard links; only this name has the new content, ` +
        (others === 1 ? "the other name keeps the old" : `the other ${others} names keep the old`),
    );
  }
  if (dirSyncError) {
    unconfirmed.push(
      `the directory could not be flushed to disk (${dirSyncError.message}), so the change may not survive a power loss`,
    );
  }
  let facts: WrittenFacts;
  try {
    facts = await verifyWritten(
      target.abs,
      target.display,
      content.bytes,
      ctx.limits.afterRename?.readBack,
    );
  } catch (error) {
    if (error instanceof ToolFailure) {
      if (unconfirmed.length === 0) throw error;
      throw new ToolFailure(error.code, `${error.message} Also, ${unconfirmed.join("; and ")}.`);
    }
    // The read-back itself failed: the result says what was sent, and the ledger keeps the old
    // record, so the model must read the file again before the next change.
    unconfirmed.push(
      `reading it back failed (${reason(error)}), so its content on disk is not confirmed: read it again before changing it`,
    );
    return {
      bytes: content.bytes.length,
      lines: countLines(Buffer.from(content.bytes).toString("utf8")),
      hash: sha256(content.bytes),
      mtimeMs: 0,
      unconfirmed,
      notes,
    };
  }
  try {
    await ctx.checkpoints.afterEdit(ctx.turn, target.abs, facts.hash);
  } catch (error) {
    unconfirmed.push(
      `undo could not record the new content (${reason(error)}), so \`nex undo\` will leave this file alone`,
    );
  }
  ctx.ledger.recordWrite({
    path: target.abs,
    hash: facts.hash,
    mtimeMs: facts.mtimeMs,
    size: facts.bytes,
    complete: change.complete,
  });
  return { ...facts, unconfirmed, notes };
}

/** How a result ends: " (read back from disk)." or what could not be confirmed after the rename. */
export function confirmation(change: CommittedChange): string {
  const notes = change.notes.map((note) => ` Note: ${note}.`).join("");
  if (change.unconfirmed.length === 0) return ` (read back from disk).${notes}`;
  const readBack = change.unconfirmed.some((clause) => clause.startsWith("reading it back"));
  return (
    `${readBack ? "" : " (read back from disk)"}. The file was replaced (${formatBytes(change.bytes)} written), but ` +
    `${change.unconfirmed.join("; and ")}. Tell the user.${notes}`
  );
}
