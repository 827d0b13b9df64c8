// What the file tools record in a checkpoint: the before-image of each file a turn changes, and
// the content it left there.
import { lstatSync, readFileSync, type Stats } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { SYNC_WRITE_BYTES, type Workspace } from "../../files/index.ts";
import { present, saveBlob } from "./checkpoint-blobs.ts";
import { appendCheckpointLog } from "./checkpoint-log.ts";
import type { TurnCheckpoint } from "./checkpoint-record.ts";

/** Counts one more event of the turn and returns its number. */
export function tick(checkpoint: TurnCheckpoint): number {
  checkpoint.events = (checkpoint.events ?? 0) + 1;
  return checkpoint.events;
}

/** The whole checkpoint as it is now, durable before this returns. */
export function saveCheckpoint(checkpointDir: string, checkpoint: TurnCheckpoint): void {
  appendCheckpointLog(checkpointDir, { type: "checkpoint", checkpoint }, { durable: true });
}

function missingDirs(dir: string, stop: string): string[] {
  const created: string[] = [];
  let current = dir;
  while (current !== stop && current !== dirname(current)) {
    if (present(current)) break;
    created.unshift(current);
    current = dirname(current);
  }
  return created;
}

/** Saves `abs`'s before-image in the checkpoint (once per turn), durably, before the tool changes it. */
export async function saveBeforeImage(
  checkpointDir: string,
  workspace: Workspace,
  checkpoint: TurnCheckpoint,
  abs: string,
): Promise<void> {
  const path = workspace.display(abs);
  const at = tick(checkpoint);
  const known = checkpoint.files.find((file) => file.path === path);
  if (known) {
    known.lastAt = at;
    return;
  }
  const afterSnapshot = checkpoint.commands.length > 0 ? { afterSnapshot: true } : {};
  let info: Stats | undefined;
  try {
    info = lstatSync(abs, { throwIfNoEntry: false });
  } catch {}
  if (!info) {
    const dirs = missingDirs(dirname(abs), workspace.root);
    checkpoint.files.push({
      path,
      existed: false,
      createdDirs: dirs.map((d) => workspace.display(d)),
      ...afterSnapshot,
      at,
      lastAt: at,
    });
  } else {
    const bytes = info.size <= SYNC_WRITE_BYTES ? readFileSync(abs) : await readFile(abs);
    const blob = await saveBlob(checkpointDir, bytes);
    checkpoint.files.push({
      path,
      existed: true,
      blob,
      mode: info.mode & 0o7777,
      ...afterSnapshot,
      at,
      lastAt: at,
    });
  }
  // The before-image and its record are durable (fsynced) before the tool changes anything.
  saveCheckpoint(checkpointDir, checkpoint);
}

/** Notes the content (sha256) a file tool left at `abs`. */
export function noteAfterImage(
  checkpointDir: string,
  workspace: Workspace,
  checkpoint: TurnCheckpoint | undefined,
  abs: string,
  hash: string,
): void {
  const path = workspace.display(abs);
  const image = checkpoint?.files.find((file) => file.path === path);
  if (!checkpoint || !image) return;
  image.afterHash = hash;
  // The after-hash only widens what undo may do: without it, undo leaves the file alone (and
  // says so) rather than restore it. So it needs no fsync of its own: it is appended to the log
  // and reaches the disk with the kernel's writeback or with the next durable append (an
  // fdatasync flushes every earlier append). A crash before then costs the automatic undo of
  // this one change, never a byte of the user's work; nothing saved before is rewritten.
  // For the same reason a failed append is no failure of the write, which has happened.
  try {
    appendCheckpointLog(
      checkpointDir,
      {
        type: "after",
        seq: checkpoint.seq,
        path,
        afterHash: hash,
        ...(image.lastAt !== undefined ? { at: image.lastAt } : {}),
      },
      { durable: false },
    );
  } catch {}
}
