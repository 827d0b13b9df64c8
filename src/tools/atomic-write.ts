import { randomBytes } from "node:crypto";
import { open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Options of an atomic write. */
export interface AtomicWriteOptions {
  /** Permission bits for the file; a replaced file's mode is passed here so it is kept. */
  mode?: number;
  signal?: AbortSignal;
  /** Bytes per write call. */
  chunkBytes?: number;
  /** Called after each chunk reaches the temporary file; lets a test kill the writer mid-write. */
  onChunk?: (written: number, total: number) => Promise<void> | void;
}

/** A hidden temporary name beside `target`, so the final rename stays on one filesystem. */
export function tempPathFor(target: string, kind = "tmp"): string {
  return join(
    dirname(target),
    `.${basename(target)}.nex-${randomBytes(6).toString("hex")}.${kind}`,
  );
}

/** Flushes a directory entry (a rename or create) to disk. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Moves a fully written and synced file over `target` in one rename, then syncs the directory.
 * Until the rename the target keeps its old content; after it, the new content is complete.
 */
export async function commitFile(source: string, target: string): Promise<void> {
  await rename(source, target);
  await syncDirectory(dirname(target));
}

/**
 * Writes `bytes` to `target` atomically: a temporary file in the same directory, written, synced,
 * then renamed over the target. A crash at any point leaves the old content or the new, never a mix.
 */
export async function atomicWrite(
  target: string,
  bytes: Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const { mode, signal, chunkBytes = 1 << 20, onChunk } = options;
  const temp = tempPathFor(target);
  const handle = await open(temp, "wx", mode ?? 0o666);
  let committed = false;
  try {
    let written = 0;
    while (written < bytes.length) {
      signal?.throwIfAborted();
      const end = Math.min(bytes.length, written + chunkBytes);
      const { bytesWritten } = await handle.write(bytes, written, end - written);
      written += bytesWritten;
      await onChunk?.(written, bytes.length);
    }
    // open() applies the umask; chmod makes a replaced file keep exactly its old mode.
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
    await handle.close();
    signal?.throwIfAborted();
    await commitFile(temp, target);
    committed = true;
  } finally {
    if (!committed) {
      await handle.close().catch(() => {});
      await unlink(temp).catch(() => {});
    }
  }
}
