import { mkdirSync } from "node:fs";
import { chmod } from "node:fs/promises";
import { dirname } from "node:path";
import { atomicWrite, commitFile } from "./atomic-write.ts";
import { type FileState, verifyWritten, type WrittenFacts } from "./file-content.ts";
import type { ToolContext } from "./tool.ts";
import { ToolFailure } from "./tool.ts";
import type { ResolvedPath } from "./workspace.ts";

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

/**
 * Commits a checked change: saves the undo checkpoint first, writes atomically, reads back,
 * and records the new content in the ledger. Throws a ToolFailure that says nothing was written
 * when any step before the rename fails.
 */
export async function commitChange(ctx: ToolContext, change: FileChange): Promise<WrittenFacts> {
  const { target, existing, content } = change;
  try {
    await ctx.checkpoints.beforeEdit(ctx.turn, target.abs);
  } catch (error) {
    throw new ToolFailure(
      "failed",
      `Could not save the undo checkpoint for ${target.display} (${(error as Error).message}); nothing was written. ` +
        "Tell the user: the checkpoint directory may be full or unwritable.",
    );
  }
  if (!existing) mkdirSync(dirname(target.abs), { recursive: true });
  ctx.leftovers.sweep(dirname(target.abs));
  if (content.type === "bytes") {
    await atomicWrite(target.abs, content.bytes, {
      ...(existing ? { mode: existing.mode } : {}),
      signal: ctx.signal,
    });
  } else {
    await content.check();
    if (existing) await chmod(content.path, existing.mode);
    await commitFile(content.path, target.abs);
  }
  const facts = await verifyWritten(target.abs, target.display, content.bytes);
  await ctx.checkpoints.afterEdit(ctx.turn, target.abs, facts.hash);
  ctx.ledger.recordWrite({
    path: target.abs,
    hash: facts.hash,
    mtimeMs: facts.mtimeMs,
    size: facts.bytes,
    complete: change.complete,
  });
  return facts;
}
