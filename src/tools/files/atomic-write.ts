import { randomBytes } from "node:crypto";
import {
  closeSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** The owner and group a replaced file had, so its replacement keeps them. */
export interface FileOwner {
  uid: number;
  gid: number;
}

/** The temporary file could not be given the replaced file's owner or group; the target is unchanged. */
export class OwnerNotKept extends Error {
  constructor(owner: FileOwner, cause: unknown) {
    super(
      `could not give the new file uid ${owner.uid} and gid ${owner.gid} (${(cause as Error).message})`,
    );
    this.name = "OwnerNotKept";
  }
}

/** Flushes a directory entry to disk; passed in so a test can make the step after the rename fail. */
export type SyncDir = (dir: string) => void;

/** The steps after a file tool's rename; a test replaces one to make it fail there. */
export interface AfterRename {
  syncDir: SyncDir;
  /** Reads the file back to check it holds what was written. */
  readBack: (abs: string) => Promise<Buffer>;
}

/**
 * What a write that reached its rename reports: the new content is in place from then on, so a later
 * failure is not an error of the write but something that could not be confirmed.
 */
export interface Committed {
  /** Why the directory could not be flushed: the new name may not survive a power loss. */
  dirSyncError?: Error;
}

/** Options of an atomic write. */
export interface AtomicWriteOptions {
  /** Permission bits for the file; a replaced file's mode is passed here so it is kept. */
  mode?: number;
  /** Owner and group for the file; a replaced file's are passed here so they are kept. */
  owner?: FileOwner;
  /** Flushes the directory after the rename (`syncDirectory` unless a test injects a failure). */
  syncDir?: SyncDir;
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

/**
 * The owner a new file gets: nex as root creating a file in another user's directory (a container
 * over a bind mount) gives it to that user, as if they had made it; otherwise whoever runs nex.
 */
export function ownerForNew(dir: string): FileOwner | undefined {
  if (process.geteuid?.() !== 0) return undefined;
  const info = statSync(dir);
  return info.uid === 0 ? undefined : { uid: info.uid, gid: info.gid };
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

/** Syncs the directory of a renamed file; a failure now is reported, never thrown: the rename happened. */
function syncAfterRename(target: string, syncDir: SyncDir = syncDirectory): Committed {
  try {
    syncDir(dirname(target));
    return {};
  } catch (error) {
    return { dirSyncError: error instanceof Error ? error : new Error(String(error)) };
  }
}

/**
 * Gives a temporary file the owner and group of the file it replaces: the rename would otherwise make
 * it belong to whoever runs nex (root in a container, over a user's bind mount). Fails before the
 * rename when the process may not give the file away, so the target is never changed.
 */
function chownSyncIfNeeded(fd: number, owner: FileOwner | undefined): void {
  if (!owner) return;
  const now = fstatSync(fd);
  if (now.uid === owner.uid && now.gid === owner.gid) return;
  try {
    fchownSync(fd, owner.uid, owner.gid);
  } catch (error) {
    throw new OwnerNotKept(owner, error);
  }
}

/**
 * Moves a fully written and synced file over `target` in one rename, then syncs the directory.
 * Until the rename the target keeps its old content; after it, the new content is complete, and
 * what the directory sync could not confirm is returned, not thrown.
 */
export async function commitFile(
  source: string,
  target: string,
  syncDir?: SyncDir,
): Promise<Committed> {
  await rename(source, target);
  return syncAfterRename(target, syncDir);
}

/**
 * Writes `bytes` to `target` atomically: a temporary file in the same directory, written, synced,
 * then renamed over the target. A crash at any point leaves the old content or the new, never a mix.
 */
export async function atomicWrite(
  target: string,
  bytes: Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<Committed> {
  if (bytes.length <= SYNC_WRITE_BYTES && options.onChunk === undefined) {
    options.signal?.throwIfAborted();
    return atomicWriteSync(target, bytes, options);
  }
  const { mode, owner, signal, chunkBytes = 1 << 20, onChunk } = options;
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
    if (owner) {
      const now = await handle.stat();
      if (now.uid !== owner.uid || now.gid !== owner.gid)
        await handle.chown(owner.uid, owner.gid).catch((error: unknown) => {
          throw new OwnerNotKept(owner, error);
        });
    }
    // open() applies the umask; chmod makes a replaced file keep exactly its old mode (after the
    // chown, which clears setuid and setgid bits).
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
    await handle.close();
    signal?.throwIfAborted();
    await rename(temp, target);
    committed = true;
  } finally {
    if (!committed) {
      await handle.close().catch(() => {});
      await unlink(temp).catch(() => {});
    }
  }
  return syncAfterRename(target, options.syncDir);
}

/** The same steps as `atomicWrite`, with synchronous calls: for small files (see `SYNC_WRITE_BYTES`). */
export function atomicWriteSync(
  target: string,
  bytes: Uint8Array,
  options: Pick<AtomicWriteOptions, "mode" | "owner" | "syncDir"> = {},
): Committed {
  const { mode, owner } = options;
  const temp = tempPathFor(target);
  let fd: number | null = openSync(temp, "wx", mode ?? 0o666);
  let committed = false;
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    chownSyncIfNeeded(fd, owner);
    // open() applies the umask; chmod makes a replaced file keep exactly its old mode (after the
    // chown, which clears setuid and setgid bits).
    if (mode !== undefined) fchmodSync(fd, mode);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(temp, target);
    committed = true;
  } finally {
    if (!committed) {
      // Cleanup errors are dropped: the error that got here is the one to report.
      if (fd !== null) ignoreErrors(() => closeSync(fd as number));
      ignoreErrors(() => unlinkSync(temp));
    }
  }
  return syncAfterRename(target, options.syncDir);
}

function ignoreErrors(work: () => void): void {
  try {
    work();
  } catch {}
}
