// One handler per chat folder, in workgraph's format (`.handler.pid`: the pid, the start time and the
// kind, one per line). A lock whose process is gone is taken over; two processes taking over the same
// stale lock go through a second exclusive file, so only one removes it and the other sees the
// winner's lock. `.handler.release-requested` asks the holder to hand the chat over at its next turn
// boundary.
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

export const LOCK_FILE = ".handler.pid";
export const RELEASE_MARKER = ".handler.release-requested";
export const TAKEOVER_FILE = ".handler.pid.takeover";
const KIND = "chat-nex";

/** Who holds a chat, as its lock file says. */
export interface LockHolder {
  pid: number;
  startedAt: string;
  kind: string;
  alive: boolean;
}

/** A held lock: `release` removes it (only while it is still this process's). */
export interface HandlerLock {
  release(): void;
  /** True when someone asked this handler to hand the chat over. */
  releaseRequested(): boolean;
}

/** The lock, or who holds it (alive) when another live process does. */
export function acquireHandlerLock(dir: string): HandlerLock | { heldBy: LockHolder } {
  const path = join(dir, LOCK_FILE);
  // A takeover by another process takes a moment: waited out in short sleeps, a second at most.
  for (let attempt = 0; attempt < 50; attempt++) {
    if (createExclusive(path, `${process.pid}\n${new Date().toISOString()}\n${KIND}\n`)) {
      // A marker left for an earlier handler is not addressed to this one.
      rmSync(join(dir, RELEASE_MARKER), { force: true });
      return heldLock(dir, path);
    }
    const holder = readHolder(path);
    if (holder?.alive) return { heldBy: holder };
    if (!takeOverStale(dir, path, holder)) Atomics.wait(PAUSE, 0, 0, 20);
  }
  const holder = readHolder(path);
  return { heldBy: holder ?? { pid: 0, startedAt: "", kind: "unknown", alive: true } };
}

/** Who holds the chat now, or null when nobody does. */
export function readHolder(path: string): LockHolder | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  const [pidLine = "", startedAt = "", kind = ""] = text.split("\n");
  const pid = Number(pidLine.trim());
  // Empty: its writer is between create and write (held), unless that was seconds ago (it died
  // there). Anything else that is not a lock is stale.
  if (!Number.isInteger(pid) || pid <= 0)
    return { pid: 0, startedAt, kind: kind.trim() || "unknown", alive: text === "" && young(path) };
  return { pid, startedAt: startedAt.trim(), kind: kind.trim() || "unknown", alive: isAlive(pid) };
}

function heldLock(dir: string, path: string): HandlerLock {
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      // Only our own lock: a successor may already hold the file.
      if (readHolder(path)?.pid === process.pid) rmSync(path, { force: true });
    },
    releaseRequested: () => existsSync(join(dir, RELEASE_MARKER)),
  };
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * Removes a dead holder's lock, under the takeover file so two takers never remove each other's.
 * False when another live process is taking it over now.
 */
function takeOverStale(dir: string, path: string, seen: LockHolder | null): boolean {
  const takeover = join(dir, TAKEOVER_FILE);
  if (!createExclusive(takeover, `${process.pid}\n`)) {
    const taker = readHolder(takeover);
    // The taker died mid-takeover: its file goes, and the next attempt starts over.
    if (taker && !taker.alive && taker.pid > 0) rmSync(takeover, { force: true });
    return false;
  }
  try {
    const now = readHolder(path);
    if (now && !now.alive && now.pid === (seen?.pid ?? now.pid)) rmSync(path, { force: true });
  } finally {
    rmSync(takeover, { force: true });
  }
  return true;
}

function createExclusive(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

function young(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < 5000;
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
