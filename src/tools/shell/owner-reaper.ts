// Every process nex starts (commands, background jobs, hooks, MCP servers) carries nex's mark in its
// environment, and inherits it into whatever it starts, whatever process group or session it moves
// to (`setsid`, a double fork). One small watcher per nex holds a pipe only nex writes to; when nex
// ends, however it ends (an exit, SIGKILL, the OOM killer), the pipe closes and the watcher kills
// every process that still carries the mark. So the whole tree nex started ends with nex, including
// what escaped a process group and what a sandbox left waiting in its own set-up. A process that
// clears its environment (`env -i`) escapes this, unless a PID namespace or cgroup holds it.
// Linux only (it reads /proc); elsewhere process groups are the bound.

const childProcess = () => process.getBuiltinModule("node:child_process");

/** The variable that marks nex's processes; its value names this nex. */
export const OWNER_VARIABLE = "NEX_OWNER";

// dash: wait for nex to end, then kill every marked process, round after round (a process that
// forks meanwhile adds marked ones) until none is found. `grep -z -x` matches one whole
// `NAME=value` entry of an environ file.
const REAP =
  'read -r _; n=0; while [ "$n" -lt 50 ]; do found=; ' +
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's own expansions, not a template.
  'for f in $(grep -lsxzF -- "$1" /proc/[0-9]*/environ); do p=${f#/proc/}; p=${p%/environ}; ' +
  '[ "$p" = "$$" ] || { kill -s KILL "$p" 2>/dev/null && found=1; }; done; ' +
  '[ -z "$found" ] && exit 0; n=$((n+1)); sleep 0.1; done';

let mark: Record<string, string> | null = null;

/**
 * The environment entry that marks a process as nex's, to add to every spawn; the first call starts
 * the watcher that ends every marked process when nex ends. Empty where /proc cannot be read.
 */
export function ownerMark(): Record<string, string> {
  if (mark) return mark;
  if (process.platform !== "linux") {
    mark = {};
    return mark;
  }
  const { randomBytes } = process.getBuiltinModule("node:crypto");
  const value = `${process.pid}-${randomBytes(6).toString("hex")}`;
  try {
    const reaper = childProcess().spawn(
      "/bin/sh",
      ["-c", REAP, "nex-reaper", `${OWNER_VARIABLE}=${value}`],
      // Its own group and session: a Ctrl-C to nex's terminal group does not end it first.
      { detached: true, stdio: ["pipe", "ignore", "ignore"], env: { PATH: "/usr/bin:/bin" } },
    );
    reaper.on("error", () => {});
    reaper.stdin?.on("error", () => {});
    // Neither the watcher nor its pipe keeps nex running.
    reaper.unref();
    (reaper.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  } catch {
    // No watcher (a machine out of processes): process groups and exit handlers still apply.
  }
  mark = { [OWNER_VARIABLE]: value };
  return mark;
}
