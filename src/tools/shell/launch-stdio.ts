// The file descriptors a launch needs beyond stdin, stdout and stderr: bubblewrap's status on fd 3,
// and on fd 4 the sandbox's lifeline to nex.
//
// bubblewrap's `--die-with-parent` chains parent-death signals from nex to its launcher, then to the
// PID namespace's init. The init sets its signal only after it has forked the command: were nex
// killed outright in that moment, the launcher dies and the init (with the command) lives on. The
// lifeline closes that gap: a socket whose other end only nex holds (close-on-exec), read inside the
// sandbox; when nex dies however it dies, the read returns and every process in the namespace is killed.
import type { ChildProcess, StdioOptions } from "node:child_process";
import type { Readable } from "node:stream";

/** What a spawn needs to know of a launch (`sandbox/policy.ts`'s `Launch`). */
interface LaunchFds {
  statusFd: boolean;
  lifeline: boolean;
}

export const STATUS_FD = 3;
export const LIFELINE_FD = 4;

/** The stdio of a spawn of `launch`: `stdin` for fd 0, pipes for output, status and lifeline. */
export function launchStdio(launch: LaunchFds, stdin: "ignore" | "pipe"): StdioOptions {
  const stdio: StdioOptions = [stdin, "pipe", "pipe", launch.statusFd ? "pipe" : "ignore"];
  if (launch.lifeline) stdio.push("pipe");
  return stdio;
}

/**
 * Keeps the lifeline flowing: it is read (nothing ever comes) so that Node sees it close when the
 * sandbox ends and the child's `close` is not held back. Like the output pipes it stays referenced:
 * a child's `close` waits for it, and nex must not exit while waiting for that.
 */
export function holdLifeline(child: ChildProcess): void {
  const lifeline = child.stdio[LIFELINE_FD] as Readable | null | undefined;
  if (!lifeline) return;
  lifeline.on("error", () => {});
  lifeline.resume();
}
