import { randomBytes } from "node:crypto";
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
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

/**
 * Files up to this size are written with synchronous calls: each asynchronous call is a hand-off to
 * the thread pool and back, which costs more CPU than writing a small file. The agent runs one change
 * at a time, so blocking the event loop for a small write (and its fsync) holds up nothing; larger
 * files go through the asynchronous path, which checks the AbortSignal between chunks.
 */
export const SYNC_WRITE_BYTES = 256 * 1024;

/** A hidden temporary name beside `target`, so the final rename stays on one filesystem. */
export function tempPathFor(target: string, kind = "tmp"): string {
  return join(
    dirname(target),
    `.${basename(target)}.nex-${randomBytes(6).toString("hex")}.${kind}`,
  );
}

/** Flushes a directory entry (a rename or create) to disk. */
export function syncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Moves a fully written and synced file over `target` in one rename, then syncs the directory.
 * Until the rename the target keeps its old content; after it, the new content is complete.
 */
export async function commitFile(source: string, target: string): Promise<void> {
  await rename(source, target);
  syncDirectory(dirname(target));
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
  if (bytes.length <= SYNC_WRITE_BYTES && options.onChunk === undefined) {
    options.signal?.throwIfAborted();
    atomicWriteSync(target, bytes, options.mode);
    return;
  }
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

/** The same steps as `atomicWrite`, with synchronous calls: for small files (see `SYNC_WRITE_BYTES`). */
export function atomicWriteSync(target: string, bytes: Uint8Array, mode?: number): void {
  const temp = tempPathFor(target);
  let fd: number | null = openSync(temp, "wx", mode ?? 0o666);
  let committed = false;
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    // open() applies the umask; chmod makes a replaced file keep exactly its old mode.
    if (mode !== undefined) fchmodSync(fd, mode);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(temp, target);
    committed = true;
    syncDirectory(dirname(target));
  } finally {
    if (!committed) {
      // Cleanup errors are dropped: the error that got here is the one to report.
      if (fd !== null) ignoreErrors(() => closeSync(fd as number));
      ignoreErrors(() => unlinkSync(temp));
    }
  }
}

function ignoreErrors(work: () => void): void {
  try {
    work();
  } catch {}
}
