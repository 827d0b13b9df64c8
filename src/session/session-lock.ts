import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";

/**
 * One process writes a session's journal at a time. Two writers would interleave their records with the
 * same sequence numbers, and the conversation could no longer be told apart. The lock is a file in the
 * data directory (`locks/<id>.lock`) naming its holder: pid, the process's start time (so a reused pid
 * is not mistaken for the holder) and host. It appears whole or not at all (written aside, then hard-linked into place,
 * which fails if a lock exists). It is released when the journal closes and, as a backstop, when the
 * process exits; a lock whose holder is gone (killed by a signal, power loss) is taken over, and the
 * taker is told.
 */

/** A held lock. */
export interface SessionLock {
  readonly path: string;
  /** Set when a lock left by a process that is gone was taken over: tell the user. */
  readonly notice: string | null;
  /** Removes the lock if it is still ours; safe to call twice. */
  release(): void;
}

/** Who holds a lock, as its file says. */
export interface LockHolder {
  pid: number;
  /** The holder's start time in clock ticks since boot (Linux `/proc/<pid>/stat` field 22), or null. */
  start: string | null;
  host: string;
  since: string;
}

/** Another live process holds the session. */
export class SessionBusyError extends Error {
  override readonly name = "SessionBusyError";
  readonly holder: LockHolder;
  constructor(sessionId: string, holder: LockHolder, lockPath: string) {
    const where = holder.host === hostname() ? "" : ` on ${holder.host}`;
    super(
      `another nex (pid ${holder.pid}${where}) is using session ${sessionId} since ${holder.since}; ` +
        "wait for it to finish, or stop it there (Esc in the chat, Ctrl-C for a headless run), then try again. " +
        "`nex sessions` lists sessions; `nex run` starts a new one. " +
        `If no nex is running, delete ${lockPath}.`,
    );
    this.holder = holder;
  }
}

/**
 * Where the lock of the journal at `<dataDir>/sessions/<id>.jsonl` lives: `<dataDir>/locks/<id>.lock`,
 * out of the sessions folder, which holds journals only.
 */
export function lockPathFor(journalPath: string): string {
  return join(dirname(dirname(journalPath)), "locks", `${basename(journalPath, ".jsonl")}.lock`);
}

const held = new Map<string, { content: string }>();
let exitHooked = false;

/**
 * Takes the lock of the session whose journal is `journalPath`, or throws `SessionBusyError` naming the
 * live holder. A lock held by this very process counts as busy too: two journals open on one session
 * interleave just the same.
 */
export function acquireSessionLock(journalPath: string, sessionId: string): SessionLock {
  const path = lockPathFor(journalPath);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const me: LockHolder = {
    pid: process.pid,
    start: startTimeOf(process.pid),
    host: hostname(),
    since: new Date().toISOString(),
  };
  const content = `${JSON.stringify({ ...me, nonce: randomBytes(6).toString("hex") })}\n`;
  let notice: string | null = null;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (placeLock(path, content)) {
      held.set(path, { content });
      hookExit();
      return {
        path,
        notice,
        release: () => releaseLock(path),
      };
    }
    const found = readLock(path);
    if (found === undefined) continue; // released meanwhile: try again
    if (found.holder && isAlive(found.holder))
      throw new SessionBusyError(sessionId, found.holder, path);
    if (takeOver(path, found.raw)) {
      notice = found.holder
        ? `Session ${sessionId} was left locked by nex pid ${found.holder.pid}, which is no longer running (it was killed or crashed); this nex took it over.`
        : `Session ${sessionId} had an unreadable lock file (${basename(path)}); this nex took it over.`;
    }
  }
  throw new Error(
    `Could not take the lock ${path}: other processes keep replacing it. Close other nex processes on session ${sessionId} and try again.`,
  );
}

/** Writes the lock aside, then links it into place: the lock never exists half-written. */
function placeLock(path: string, content: string): boolean {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(aside, content, { mode: 0o600 });
  try {
    linkSync(aside, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw error;
    // A file system without hard links: exclusive create, written at once (a torn lock reads as stale).
    try {
      writeFileSync(path, content, { flag: "wx", mode: 0o600 });
      return true;
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw inner;
    }
  } finally {
    try {
      unlinkSync(aside);
    } catch {}
  }
}

/** The lock's text and holder (null when unreadable as a lock); undefined when there is no lock. */
function readLock(path: string): { raw: string; holder: LockHolder | null } | undefined {
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return { raw, holder: parseHolder(raw) };
}

function parseHolder(raw: string): LockHolder | null {
  try {
    const v = JSON.parse(raw) as Record<string, unknown>;
    if (!Number.isSafeInteger(v.pid) || (v.pid as number) <= 0) return null;
    return {
      pid: v.pid as number,
      start: typeof v.start === "string" ? v.start : null,
      host: typeof v.host === "string" ? v.host : "",
      since: typeof v.since === "string" ? v.since : "an unknown time",
    };
  } catch {
    return null;
  }
}

/** Whether the holder may still be running; a holder on another host is assumed to be. */
export function isAlive(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid)
    return holder.start === null || holder.start === startTimeOf(process.pid);
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: the pid runs as another user, so it is alive.
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  if (holder.start === null) return true;
  const start = startTimeOf(holder.pid);
  // Same pid, other start time: the holder died and its pid went to an unrelated process.
  return start === null || start === holder.start;
}

/**
 * Moves a stale lock out of the way, but only the very lock judged stale: between reading it and moving
 * it another process may have taken over already, and its fresh lock is put back.
 */
function takeOver(path: string, staleRaw: string): boolean {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.stale`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  let moved = "";
  try {
    moved = readFileSync(aside, "utf8");
  } catch {}
  if (moved !== staleRaw) {
    try {
      linkSync(aside, path);
    } catch {}
  }
  try {
    unlinkSync(aside);
  } catch {}
  return moved === staleRaw;
}

function releaseLock(path: string): void {
  const mine = held.get(path);
  if (!mine) return;
  held.delete(path);
  try {
    if (readFileSync(path, "utf8") === mine.content) unlinkSync(path);
  } catch {}
}

function releaseAll(): void {
  for (const path of [...held.keys()]) releaseLock(path);
}

// No signal handlers: a listener of ours would stop Ink's signal-exit (and Node's default) from
// ending the process, and a headless Ctrl-C is handled by the run and ends in `exit`. A process killed
// by a signal leaves its lock, which the next nex finds dead and takes over, saying so.
function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on("exit", releaseAll);
}

/** The process's start time in clock ticks since boot (Linux), or null where `/proc` is missing. */
export function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}
