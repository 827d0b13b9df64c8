// The checkpoint store's blobs: before-images and mode maps, saved under their sha256.
import { existsSync, lstatSync, mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { atomicWrite, sha256, syncDirectory } from "../../files/index.ts";
import type { ModeMap } from "../shadow-git.ts";

/** Reads a saved before-image. */
export function readBlob(checkpointDir: string, blob: string): Promise<Buffer> {
  return readFile(join(checkpointDir, "blobs", blob));
}

/** Reads a saved mode map (empty when none was saved). */
export async function readModes(checkpointDir: string, blob: string | undefined): Promise<ModeMap> {
  if (!blob) return {};
  try {
    return JSON.parse((await readBlob(checkpointDir, blob)).toString("utf8")) as ModeMap;
  } catch {
    return {};
  }
}

/** Saves bytes under their sha256 in the store's blobs, durably; returns the name. */
export async function saveBlob(checkpointDir: string, bytes: Buffer): Promise<string> {
  const blobsDir = join(checkpointDir, "blobs");
  const blob = sha256(bytes);
  const blobPath = join(blobsDir, blob);
  if (!present(blobPath)) {
    if (!existsSync(blobsDir)) {
      mkdirSync(blobsDir, { recursive: true });
      // The new directory's own entry must be durable too, or its blobs could vanish with it.
      syncDirectory(checkpointDir);
    }
    // The before-image must be durable before the change: an unsynced entry fails the checkpoint.
    const { dirSyncError } = await atomicWrite(blobPath, bytes);
    if (dirSyncError) throw dirSyncError;
  }
  return blob;
}

/** Saves a mode map as a blob; none when there is nothing git would lose. */
export async function saveModes(
  checkpointDir: string,
  modes: ModeMap | undefined,
): Promise<string | undefined> {
  return modes && Object.keys(modes).length > 0
    ? saveBlob(checkpointDir, Buffer.from(JSON.stringify(modes)))
    : undefined;
}

// `throwIfNoEntry: false`: a missing path is the common answer here, and an exception costs more.
export function present(path: string | Buffer): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
