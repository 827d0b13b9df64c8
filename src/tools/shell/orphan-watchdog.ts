// A job outside the OS sandbox has no `--die-with-parent`: were nex killed outright (SIGKILL, the OOM
// killer), no exit handler would run and the job's process group would live on, changing files after
// nex is gone. A tiny shell per job holds the read end of a pipe only nex writes to; when nex dies
// the kernel closes the pipe, the read returns, and the watchdog kills the job's whole group.

const childProcess = () => process.getBuiltinModule("node:child_process");

// dash's kill takes `-s KILL -- -PGID` (not `-KILL -- -PGID`).
const WATCH = 'read -r _ || kill -s KILL -- "-$1" 2>/dev/null';

// A machine short of processes (a fork bomb elsewhere) refuses a spawn for a moment: try again.
const RETRIES = 20;
const RETRY_MS = 100;

/** Watches a process group for nex's death; the returned function ends the watch (the job ended). */
export function killGroupWhenNexDies(group: number | undefined): () => void {
  if (group === undefined || process.platform === "win32") return () => {};
  let pid: number | undefined;
  let ended = false;
  let retry: NodeJS.Timeout | undefined;
  const start = (attempt: number): void => {
    if (ended) return;
    const again = () => {
      if (attempt < RETRIES) retry = setTimeout(() => start(attempt + 1), RETRY_MS).unref();
    };
    try {
      const watchdog = childProcess().spawn(
        "/bin/sh",
        ["-c", WATCH, "nex-job-watchdog", String(group)],
        { detached: true, stdio: ["pipe", "ignore", "ignore"] },
      );
      watchdog.on("error", () => {
        if (pid === watchdog.pid) pid = undefined;
        again();
      });
      watchdog.stdin?.on("error", () => {});
      // Neither the watchdog nor its pipe keeps nex running.
      watchdog.unref();
      (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      pid = watchdog.pid;
    } catch {
      again();
    }
  };
  start(0);
  return () => {
    ended = true;
    if (retry) clearTimeout(retry);
    if (pid === undefined) return;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
    pid = undefined;
  };
}
