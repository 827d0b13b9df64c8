// A job outside the OS sandbox has no `--die-with-parent`: were nex killed outright (SIGKILL, the OOM
// killer), no exit handler would run and the job's process group would live on, changing files after
// nex is gone. A tiny shell per job holds the read end of a pipe only nex writes to; when nex dies
// the kernel closes the pipe, the read returns, and the watchdog kills the job's whole group.

const childProcess = () => process.getBuiltinModule("node:child_process");

// dash's kill takes `-s KILL -- -PGID` (not `-KILL -- -PGID`).
const WATCH = 'read -r _ || kill -s KILL -- "-$1" 2>/dev/null';

/** Watches a process group for nex's death; the returned function ends the watch (the job ended). */
export function killGroupWhenNexDies(group: number | undefined): () => void {
  if (group === undefined || process.platform === "win32") return () => {};
  let pid: number | undefined;
  try {
    const watchdog = childProcess().spawn(
      "/bin/sh",
      ["-c", WATCH, "nex-job-watchdog", String(group)],
      {
        detached: true,
        stdio: ["pipe", "ignore", "ignore"],
      },
    );
    watchdog.on("error", () => {});
    watchdog.stdin?.on("error", () => {});
    // Neither the watchdog nor its pipe keeps nex running.
    watchdog.unref();
    (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    pid = watchdog.pid;
  } catch {
    return () => {};
  }
  return () => {
    if (pid === undefined) return;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
    pid = undefined;
  };
}
