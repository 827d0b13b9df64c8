// Workgraph's writers assign outbox ids under an exclusive flock(2) on the sidecar
// `outbox.jsonl.lock`: lock, read the largest id, append, unlock (its rotation rewrites the file under
// the same lock). nex takes the very same lock, so the two sides never repeat an id and never lose a
// line to a rotation. Node.js has no flock, so a helper does the one system call: nex opens the lock
// file, hands the descriptor to `flock -x 3` (util-linux or busybox; `perl` where there is no flock,
// as on macOS), and the lock, which belongs to the open file description and not to the process,
// stays with nex's descriptor after the helper exits. Closing the descriptor releases it, and so does
// nex's death: a crashed nex never leaves the chat locked.
import { spawn } from "node:child_process";
import { closeSync, constants, openSync } from "node:fs";

export const OUTBOX_LOCK = "outbox.jsonl.lock";

/** How long nex waits for another writer's lock before appending without it (and saying so). */
export const LOCK_WAIT_MS = 30_000;

/** A held lock (or the reason nex holds none); `release` is safe to call twice. */
export interface OutboxLock {
  /** Null when locked; else why the append goes ahead without the lock. */
  unlocked: string | null;
  release(): void;
}

/** The helpers that can take an flock on descriptor 3, in the order tried. */
export const LOCK_HELPERS: ReadonlyArray<readonly [string, ...string[]]> = [
  ["flock", "-x", "3"],
  [
    "perl",
    "-MFcntl=:flock",
    "-e",
    'open(my $f, "+<&=", 3) or die "$!"; flock($f, LOCK_EX) or die "$!"',
  ],
];

/** Takes workgraph's lock on `lockPath`; never throws for a lock it could not take (see `unlocked`). */
export async function lockOutbox(
  lockPath: string,
  waitMs = LOCK_WAIT_MS,
  helpers = LOCK_HELPERS,
): Promise<OutboxLock> {
  const fd = openSync(lockPath, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  let open = true;
  const release = () => {
    if (!open) return;
    open = false;
    closeSync(fd);
  };
  const missing: string[] = [];
  for (const [command, ...args] of helpers) {
    const outcome = await runHelper(command, args, fd, waitMs);
    if (outcome === "locked") return { unlocked: null, release };
    if (outcome === "missing") {
      missing.push(command);
      continue;
    }
    release();
    return { unlocked: outcome, release };
  }
  release();
  return {
    unlocked: `neither ${missing.join(" nor ")} is on PATH to take workgraph's lock ${OUTBOX_LOCK} (install util-linux)`,
    release,
  };
}

/** "locked", "missing" (no such program), or why the lock was not taken. */
function runHelper(
  command: string,
  args: string[],
  fd: number,
  waitMs: number,
): Promise<"locked" | "missing" | string> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe", fd] });
    let stderr = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      if (stderr.length < 2000) stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), waitMs);
    child.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(error.code === "ENOENT" ? "missing" : `${command} failed (${error.message})`);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve("locked");
      else if (signal === "SIGKILL")
        resolve(`another process held ${OUTBOX_LOCK} for over ${Math.round(waitMs / 1000)} s`);
      else resolve(`${command} could not take ${OUTBOX_LOCK} (${stderr.trim() || `exit ${code}`})`);
    });
  });
}
